package inspect

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/auditscope/auditscope/data/petri"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "fixtures", "inspect", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return p
}

// readAll opens a log and returns its header and every sample.
func readAll(t testing.TB, path string) (*Log, []*Sample) {
	t.Helper()
	l, err := Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var out []*Sample
	if err := l.Samples(func(s *Sample) error { out = append(out, s); return nil }); err != nil {
		t.Fatal(err)
	}
	return l, out
}

// TestFixtures reads every Inspect log of testdata/fixtures/inspect and
// checks its sample count, one known message and one known score, values
// read off the files with Python's json module.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file    string
		model   string
		samples int
		key     string // sample checked
		msg     int    // message index
		role    string
		text    string // the message's text (or its start)
		scorer  string // "" when the sample has no scores
		value   string // the score's value as JSON
	}{
		{"docent-sample.eval", "openai/gpt-4o", 15, "19_epoch_1", 4, "assistant", "picoCTF{101010}", "includes", `"C"`},
		{"log_formats.eval", "ollama/llama3.1", 1, "1_epoch_1", 2, "assistant", "No", "match", `"I"`},
		{"log_formats.json", "ollama/llama3.1", 1, "1_epoch_1", 2, "assistant", "No", "match", `"I"`},
		{"log_message_deduplication.eval", "hardcoded/hardcoded", 1, "0_epoch_1", 0, "user", "Guess the number", "closeness_log", `0.0`},
		{"log_read_sample.eval", "ollama/gemma3", 1, "1_epoch_1", 2, "assistant", "Yes\n", "match", `"C"`},
		{"log_read_sample.json", "ollama/gemma3", 1, "1_epoch_1", 2, "assistant", "Yes\n", "match", `"C"`},
		{"log_streaming.eval", "azureai/Meta-Llama-3-1-405B-Instruct-jqf", 4, "1_epoch_2", 2, "assistant", "Yes.", "match", `"C"`},
		{"log_tool_call_error.json", "...", 1, "1_epoch_4", 10, "tool", "\nThe output of your call to bash was too long", "", ""},
		{"popularity.json", "openai/gpt-4o-mini", 3, "2_epoch_1", 2, "assistant", "No", "match", `"C"`},
		{"security-guide.json", "openai/gpt-4o-mini", 3, "1_epoch_1", 1, "user", "How do I prevent SQL Injection attacks?", "model_graded_fact", `"C"`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l, samples := readAll(t, fixture(t, tt.file))
			if l.Header.Eval.Model != tt.model {
				t.Errorf("model = %q, want %q", l.Header.Eval.Model, tt.model)
			}
			if len(samples) != tt.samples {
				t.Fatalf("%d samples, want %d", len(samples), tt.samples)
			}
			var s *Sample
			for _, x := range samples {
				if x.Key() == tt.key {
					s = x
				}
			}
			if s == nil {
				t.Fatalf("no sample %s", tt.key)
			}
			if tt.msg >= len(s.Messages) {
				t.Fatalf("sample %s has %d messages, want more than %d", tt.key, len(s.Messages), tt.msg)
			}
			m := s.Messages[tt.msg]
			if m.Role != tt.role || !strings.HasPrefix(m.Content.String(), tt.text) {
				t.Errorf("messages[%d] = %s %q, want %s %q", tt.msg, m.Role, m.Content.String(), tt.role, tt.text)
			}
			if tt.scorer == "" {
				if len(s.Scores) != 0 {
					t.Errorf("scores = %v, want none", s.Scores)
				}
				return
			}
			sc, ok := s.Scores[tt.scorer]
			if !ok {
				t.Fatalf("no score %q in %v", tt.scorer, s.Scores)
			}
			if got := string(sc.Value); got != tt.value {
				t.Errorf("score %s = %s, want %s", tt.scorer, got, tt.value)
			}
			// The summary pass sees the same samples without messages.
			n := 0
			if err := l.Summaries(func(x *Sample) error {
				n++
				if x.Messages != nil {
					t.Errorf("summary of %s has messages", x.Key())
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if n != tt.samples {
				t.Errorf("summaries: %d samples, want %d", n, tt.samples)
			}
		})
	}
}

func TestFixtureDetails(t *testing.T) {
	// log_streaming: 2 samples x 2 epochs, in (id, epoch) order whatever the
	// zip's member order.
	_, samples := readAll(t, fixture(t, "log_streaming.eval"))
	var keys []string
	for _, s := range samples {
		keys = append(keys, s.Key())
	}
	if got, want := strings.Join(keys, " "), "1_epoch_1 1_epoch_2 2_epoch_1 2_epoch_2"; got != want {
		t.Errorf("order = %s, want %s", got, want)
	}

	// docent: tool calls and tool results.
	_, samples = readAll(t, fixture(t, "docent-sample.eval"))
	var s19 *Sample
	for _, s := range samples {
		if s.ID == "19" {
			s19 = s
		}
	}
	tc := s19.Messages[2].ToolCalls
	if len(tc) != 1 || tc[0].Function != "python" || !strings.Contains(tc[0].Arguments["code"].(string), "bin(number)") {
		t.Errorf("messages[2].tool_calls = %+v, want one python call", tc)
	}
	if r := s19.Messages[3]; r.Role != "tool" || len(r.ToolCallID) != 1 || r.ToolCallID[0] != tc[0].ID || r.Function != "python" {
		t.Errorf("messages[3] = %+v, want the python call's result", r)
	}
	if got := string(s19.Metadata["source"]); got != `"https://play.picoctf.org/practice/challenge/86"` {
		t.Errorf("metadata.source = %s", got)
	}

	// Tool-call errors.
	_, samples = readAll(t, fixture(t, "log_tool_call_error.json"))
	last := samples[0].Messages[10]
	if last.Error == nil || last.Error.Type != "output_limit" || last.ToolCallID[0] != "bash_11" {
		t.Errorf("last message = %+v, want the output_limit error of bash_11", last)
	}

	// The deduplicated log's 12 messages, ids kept.
	_, samples = readAll(t, fixture(t, "log_message_deduplication.eval"))
	if m := samples[0].Messages; len(m) != 12 || m[11].ID != "6JwAFK9V7DWmwHysL3XDMd" || m[11].Content.String() != "done" {
		t.Errorf("dedup messages: %d, last %+v", len(m), m[len(m)-1])
	}
}

// TestMessagePool removes the final conversation from the deduplicated
// fixture's sample: it is rebuilt from the last model call, whose input is
// range references into the message pool.
func TestMessagePool(t *testing.T) {
	members := unzip(t, fixture(t, "log_message_deduplication.eval"))
	name := "samples/0_epoch_1.json"
	var s map[string]json.RawMessage
	if err := json.Unmarshal(members[name], &s); err != nil {
		t.Fatal(err)
	}
	delete(s, "messages")
	b, _ := json.Marshal(s)
	members[name] = b
	path := writeZip(t, members, zip.Deflate)
	_, samples := readAll(t, path)
	m := samples[0].Messages
	if len(m) != 12 || m[0].Content.String() != "Guess the number" || m[11].Content.String() != "done" || m[1].ToolCalls[0].Function != "bash" {
		t.Fatalf("rebuilt %d messages: %+v", len(m), m)
	}

	// The same with the pool under events_data, as current Inspect writes it.
	s["events_data"], _ = json.Marshal(map[string]json.RawMessage{"messages": s["message_pool"], "calls": []byte("[]")})
	delete(s, "message_pool")
	members[name], _ = json.Marshal(s)
	_, samples = readAll(t, writeZip(t, members, zip.Deflate))
	if got := len(samples[0].Messages); got != 12 {
		t.Errorf("events_data pool: %d messages, want 12", got)
	}
}

func unzip(t testing.TB, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

type member struct {
	name string
	body []byte
}

// writeZip writes members (header.json first, then sorted) with method.
func writeZip(t testing.TB, members map[string][]byte, method uint16) string {
	t.Helper()
	var list []member
	for name, b := range members {
		list = append(list, member{name, b})
	}
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j].name < list[j-1].name; j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
	return writeMembers(t, list, method)
}

func writeMembers(t testing.TB, list []member, method uint16) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.eval")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zstd.ZipMethodWinZip, zstd.ZipCompressor())
	for _, m := range list {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

const testHeader = `{"version": 2, "status": "success", "eval": {"task": "t", "created": "2026-01-02T03:04:05+00:00", "model": "m/one",
 "tags": ["audit_quality"], "dataset": {"name": "d"}, "model_roles": {"target": {"model": "m/target"}}}, "stats": {}}`

// TestZstdAndChunked reads a .eval written with zstd members (method 93)
// that holds a monolith sample with an attachment reference and a sample in
// the chunked per-sample layout.
func TestZstdAndChunked(t *testing.T) {
	long := strings.Repeat("a long system prompt ", 20)
	members := map[string][]byte{
		"header.json": []byte(testHeader),
		"samples/a_epoch_1.json": []byte(`{"id": "a", "epoch": 1, "input": "attachment://0123456789abcdef0123456789abcdef", "target": "x",
 "messages": [{"role": "system", "content": "attachment://0123456789abcdef0123456789abcdef"},
  {"role": "user", "content": [{"type": "text", "text": "quoted \"attachment://0123456789abcdef0123456789abcdef\" stays"}]},
  {"role": "assistant", "content": "ok", "tool_calls": [{"id": "c1", "function": "f", "arguments": {"x": "attachment://0123456789abcdef0123456789abcdef"}}]}],
 "scores": {"judge": {"value": {"concerning": 7, "fallback_model": 0}, "answer": "sum"}},
 "attachments": {"0123456789abcdef0123456789abcdef": ` + mustJSON(long) + `}}`),
		"samples/7_epoch_2/sample.json":        []byte(`{"id": 7, "epoch": 2, "input": "attachment://1", "target": "x", "message_refs": [[2, 3], [0, 2]], "scores": {"s": {"value": 3}}}`),
		"samples/7_epoch_2/metadata.json":      []byte(`{"behavior": "flattery"}`),
		"samples/7_epoch_2/messages/0.json":    []byte(`[{"id": "m0", "role": "user", "content": "attachment://0"}, {"id": "m1", "role": "assistant", "content": "hi"}]`),
		"samples/7_epoch_2/messages/2.json":    []byte(`[{"id": "m2", "role": "system", "content": "sys"}]`),
		"samples/7_epoch_2/attachments/0.json": []byte(`["hello from an attachment", "the input"]`),
		"samples/7_epoch_2/events/stats.json":  []byte(`{}`),
	}
	path := writeZip(t, members, zstd.ZipMethodWinZip)
	// Check the members really are zstd.
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Method != zstd.ZipMethodWinZip {
			t.Fatalf("member %s has method %d", f.Name, f.Method)
		}
	}
	zr.Close()

	l, samples := readAll(t, path)
	if l.Header.Eval.RoleModel("target") != "m/target" || l.Header.Eval.Tags[0] != "audit_quality" {
		t.Errorf("header = %+v", l.Header.Eval)
	}
	if len(samples) != 2 {
		t.Fatalf("%d samples, want 2", len(samples))
	}
	// Numeric ids sort before the others.
	c, a := samples[0], samples[1]
	if a.Key() != "a_epoch_1" || c.Key() != "7_epoch_2" {
		t.Fatalf("keys %s, %s", a.Key(), c.Key())
	}
	if a.Input != long || a.Messages[0].Content.String() != long || a.Messages[2].ToolCalls[0].Arguments["x"] != long {
		t.Errorf("attachments not resolved: %q / %+v", a.Input, a.Messages)
	}
	if got := a.Messages[1].Content.String(); got != `quoted "attachment://0123456789abcdef0123456789abcdef" stays` {
		t.Errorf("a reference inside longer text must stay: %q", got)
	}
	if got := string(a.Scores["judge"].Value); got != `{"concerning": 7, "fallback_model": 0}` {
		t.Errorf("judge value = %s", got)
	}
	var ids []string
	for _, m := range c.Messages {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "m2,m0,m1" || c.Messages[1].Content.String() != "hello from an attachment" || c.Input != "the input" {
		t.Errorf("chunked sample: ids %v, messages %+v, input %q", ids, c.Messages, c.Input)
	}
	if string(c.Metadata["behavior"]) != `"flattery"` || string(c.Scores["s"].Value) != "3" {
		t.Errorf("chunked metadata %v, scores %v", c.Metadata, c.Scores)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestLastHeaderWins: a header.json appended later replaces the first.
func TestLastHeaderWins(t *testing.T) {
	list := []member{
		{"header.json", []byte(`{"version": 2, "status": "started", "eval": {"task": "t", "model": "first"}}`)},
		{"samples/1_epoch_1.json", []byte(`{"id": 1, "epoch": 1, "messages": []}`)},
		{"header.json", []byte(`{"version": 2, "status": "success", "eval": {"task": "t", "model": "second"}}`)},
	}
	l, samples := readAll(t, writeMembers(t, list, zip.Deflate))
	if l.Header.Eval.Model != "second" || l.Header.Status != "success" || len(samples) != 1 {
		t.Errorf("header = %+v, %d samples; want the second header", l.Header, len(samples))
	}
}

func TestRefusedMembers(t *testing.T) {
	// A member that would leave a folder is refused before it is read.
	path := writeMembers(t, []member{{"header.json", []byte(testHeader)}, {"../x", []byte("boom")}}, zip.Deflate)
	_, err := Open(path, 0)
	var le *Error
	if !errors.As(err, &le) || le.Member != "../x" || !strings.Contains(err.Error(), "unsafe name") {
		t.Errorf("../x member: err = %v, want an unsafe-name error naming the member", err)
	}

	// A member claiming 10 GB uncompressed is refused before it is read.
	path = filepath.Join(t.TempDir(), "bomb.eval")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("header.json")
	w.Write([]byte(testHeader))
	body := []byte("{}")
	raw, err := zw.CreateRaw(&zip.FileHeader{Name: "samples/1_epoch_1.json", Method: zip.Store,
		CRC32: crc32.ChecksumIEEE(body), CompressedSize64: uint64(len(body)), UncompressedSize64: 10 << 30})
	if err != nil {
		t.Fatal(err)
	}
	raw.Write(body)
	zw.Close()
	f.Close()
	_, err = Open(path, 0)
	if !errors.As(err, &le) || le.Member != "samples/1_epoch_1.json" || !strings.Contains(err.Error(), "10737418240 bytes") {
		t.Errorf("10 GB member: err = %v, want a refusal naming the member and its size", err)
	}
}

func TestBrokenLogs(t *testing.T) {
	// A corrupt deflate stream: the error names the file and the member.
	members := unzip(t, fixture(t, "log_formats.eval"))
	path := writeZip(t, members, zip.Deflate)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Damage the compressed bytes of the sample member.
	zr, _ := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	var off int64
	for _, f := range zr.File {
		if f.Name == "samples/1_epoch_1.json" {
			off, _ = f.DataOffset()
		}
	}
	for i := off + 10; i < off+60; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = l.Samples(func(*Sample) error { return nil })
	if err == nil || !strings.Contains(err.Error(), path+": samples/1_epoch_1.json: ") {
		t.Errorf("corrupt member: err = %v, want file and member named", err)
	}

	// A message whose content is neither a string nor a list: the JSON path.
	members["samples/1_epoch_1.json"] = []byte(`{"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
 {"role": "user", "content": "c"}, {"role": "user", "content": 42}]}`)
	path = writeZip(t, members, zip.Deflate)
	l, err = Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = l.Samples(func(*Sample) error { return nil })
	if want := path + ": samples/1_epoch_1.json: messages[3].content: want a string or a list"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("bad content: err = %v, want %q", err, want)
	}

	// A truncated .json log.
	full, err := os.ReadFile(fixture(t, "popularity.json"))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "cut.json")
	os.WriteFile(path, full[:len(full)/2], 0o644)
	// The header is whole: the error comes with the samples.
	l, err = Open(path, 0)
	if err == nil {
		err = l.Samples(func(*Sample) error { return nil })
	}
	if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.HasPrefix(err.Error(), path+": samples[") {
		t.Errorf("truncated json: err = %v", err)
	}
	// Cut inside the header.
	os.WriteFile(path, full[:200], 0o644)
	if _, err = Open(path, 0); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated header: err = %v", err)
	}

	// A .json sample with a bad field names the sample.
	bad := strings.Replace(string(full), `"epoch": 1`, `"epoch": "one"`, 1)
	path = filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(path, []byte(bad), 0o644)
	l, err = Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = l.Samples(func(*Sample) error { return nil })
	if want := path + ": samples[0].epoch: want a whole number"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("bad epoch: err = %v, want %q", err, want)
	}

	// Not a zip at all.
	path = filepath.Join(t.TempDir(), "not.eval")
	os.WriteFile(path, []byte("hello"), 0o644)
	if _, err := Open(path, 0); err == nil || !strings.Contains(err.Error(), "not a readable .eval") {
		t.Errorf("not a zip: err = %v", err)
	}
}

// TestSampleRecord reads what a sample records beside its messages: the
// target, each model's tokens and the time, values read off the files
// with Python's json module; a log without them records none.
func TestSampleRecord(t *testing.T) {
	_, ss := readAll(t, fixture(t, "security-guide.json"))
	s := ss[0]
	i64 := func(v int64) *int64 { return &v }
	want := petri.TokenUsage{Model: "openai/gpt-4o-mini", Input: 320, Output: 309, Total: 629, CacheRead: i64(0), Reasoning: i64(0)}
	if s.Key() != "1_epoch_1" || !reflect.DeepEqual(s.Target, []string{"use parameterized queries and prepared statements"}) ||
		len(s.Usage) != 1 || !reflect.DeepEqual(s.Usage[0], want) || s.TotalTime == nil || *s.TotalTime != 6.282 || s.WorkingTime == nil || *s.WorkingTime != 6.155 ||
		len(s.Retries) != 0 || s.Limit != "" {
		t.Errorf("security-guide 1_epoch_1: target %q usage %+v times %v %v retries %q limit %q", s.Target, s.Usage, s.TotalTime, s.WorkingTime, s.Retries, s.Limit)
	}
	// A .eval log: the target is the flag; usage without cache counts.
	_, ss = readAll(t, fixture(t, "docent-sample.eval"))
	for _, s := range ss {
		if s.Key() != "15_epoch_1" {
			continue
		}
		if len(s.Target) != 1 || !strings.HasPrefix(s.Target[0], "picoCTF{") || len(s.Usage) != 1 || s.Usage[0].Model != "openai/gpt-4o" || s.Usage[0].CacheRead != nil || s.TotalTime != nil {
			t.Errorf("docent-sample 15_epoch_1: target %q usage %+v time %v", s.Target, s.Usage, s.TotalTime)
		}
	}
	_, ss = readAll(t, fixture(t, "log_formats.json"))
	if s := ss[0]; len(s.Usage) != 0 || s.TotalTime != nil || !reflect.DeepEqual(s.Target, []string{" Yes"}) {
		t.Errorf("log_formats: usage %+v time %v target %q", s.Usage, s.TotalTime, s.Target)
	}
}

// TestSampleRetriesAndLimit: the errors of retried attempts and the limit
// that stopped a sample, and a target given as a list.
func TestSampleRetriesAndLimit(t *testing.T) {
	b := []byte(`{"id": 3, "epoch": 2, "input": "q", "target": ["a", "b"],
		"error_retries": [{"message": "RateLimitError: slow down", "traceback": "..."}, {"message": "timeout"}],
		"limit": {"type": "token", "limit": 5000}, "messages": []}`)
	s, err := decodeSample(b, nil, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Target, []string{"a", "b"}) || !reflect.DeepEqual(s.Retries, []string{"RateLimitError: slow down", "timeout"}) || s.Limit != "token limit of 5000" {
		t.Errorf("target %q retries %q limit %q", s.Target, s.Retries, s.Limit)
	}
	if _, err := decodeSample([]byte(`{"id": 1, "epoch": 1, "error_retries": "nope"}`), nil, false, 0); err == nil || !strings.Contains(err.Error(), "error_retries") {
		t.Errorf("bad error_retries: %v", err)
	}
}

// TestMemberBOM: members that start with a UTF-8 byte order mark (a log
// edited on Windows) are read as without it; they were refused.
func TestMemberBOM(t *testing.T) {
	bom := "\xef\xbb\xbf"
	list := []member{
		{"header.json", []byte(bom + testHeader)},
		{"samples/1_epoch_1.json", []byte(bom + `{"id": 1, "epoch": 1, "input": "q", "messages": []}`)},
	}
	l, samples := readAll(t, writeMembers(t, list, zip.Deflate))
	if l.Header.Eval.Model != "m/one" || len(samples) != 1 || samples[0].Epoch != 1 {
		t.Errorf("header %+v, %d samples; want the log read as without its byte order marks", l.Header.Eval, len(samples))
	}
}
