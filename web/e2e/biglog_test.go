package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// bigInspectLog is an Inspect .json log of one agentic sample: turns
// exchanges of a markdown user turn, an assistant turn with a python tool
// call and the tool's output (pad bytes of text each), and, per turn, a
// model call (tokens, working time; every tenth retried, every
// twenty-fifth an error), a tool call and the sandbox command it ran
// (every seventh exiting non-zero): 4 events a turn with the sample's
// init and score.
func bigInspectLog(turns, pad int) []byte {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) string {
		return t0.Add(time.Duration(s * float64(time.Second))).Format(time.RFC3339Nano)
	}
	text := strings.Repeat("Some **bold** words and `code` in a line of prose.\n", max(1, pad/52))
	msgs := []map[string]any{{"role": "system", "content": "You are an agent."}}
	events := []map[string]any{{"event": "sample_init", "timestamp": at(0), "sample": map[string]any{"id": 1}, "state": map[string]any{}}}
	for i := range turns {
		call := fmt.Sprintf("call_%d", i)
		code := fmt.Sprintf("for k in range(%d):\n    print(k < 3 and 'a' or 'b')", i)
		msgs = append(msgs,
			map[string]any{"role": "user", "content": fmt.Sprintf("Turn %d.\n\n%s\n```python\nprint(%d)\n```", i, text, i)},
			map[string]any{"role": "assistant", "content": text, "tool_calls": []map[string]any{{"id": call, "function": "python", "arguments": map[string]any{"code": code}}}},
			map[string]any{"role": "tool", "tool_call_id": call, "function": "python", "content": text})
		model := map[string]any{"event": "model", "timestamp": at(float64(4 * i)), "model": "openai/gpt-4o", "input": []any{}, "tools": []any{}, "tool_choice": "auto", "config": map[string]any{},
			"output": map[string]any{"model": "gpt-4o", "choices": []map[string]any{{"message": map[string]any{"role": "assistant", "content": "thinking about turn " + fmt.Sprint(i)}, "stop_reason": "tool_calls"}},
				"usage": map[string]any{"input_tokens": 1000 + i, "output_tokens": 50, "total_tokens": 1050 + i, "input_tokens_cache_read": 200}},
			"working_time": 1.5}
		if i%10 == 0 {
			model["retries"] = 2
		}
		if i%25 == 0 {
			model["error"] = "RateLimitError: slow down"
		}
		exit := 0
		if i%7 == 0 {
			exit = 1
		}
		events = append(events, model,
			map[string]any{"event": "tool", "timestamp": at(float64(4*i) + 1.5), "type": "function", "id": call, "function": "python", "arguments": map[string]any{"code": code},
				"result": "b\nb\n", "events": []any{}, "working_time": 0.25},
			map[string]any{"event": "sandbox", "timestamp": at(float64(4*i) + 1.6), "action": "exec", "cmd": "python3 -", "result": exit, "output": "b\n", "completed": at(float64(4*i) + 1.7)})
	}
	events = append(events, map[string]any{"event": "score", "timestamp": at(float64(4 * turns)), "score": map[string]any{"value": "C", "answer": "b"}, "target": "b"})
	log := map[string]any{"version": 2, "status": "success",
		"eval": map[string]any{"run_id": "run", "created": at(0), "task": "agentic", "task_id": "t1", "dataset": map[string]any{"name": "d", "samples": 1}, "model": "openai/gpt-4o"},
		"plan": map[string]any{}, "results": map[string]any{}, "stats": map[string]any{"started_at": at(0), "completed_at": at(float64(4 * turns))},
		"samples": []map[string]any{{"id": 1, "epoch": 1, "input": "Solve it.", "target": "b", "messages": msgs,
			"scores": map[string]any{"match": map[string]any{"value": "C", "answer": "b"}}, "events": events}}}
	b, err := json.Marshal(log)
	if err != nil {
		panic(err)
	}
	return b
}
