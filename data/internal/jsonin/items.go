package jsonin

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/internal/limit"
)

// Items bounds what one JSON value may hold in number of items, beside its
// size in bytes. A value of 90 MiB made of tiny items (2.9 million empty
// messages, 7.9 million metadata keys) cost 1.3–2.6 GiB to decode, where
// the same bytes of text cost a few hundred MiB: the 1 GiB bound needs a
// count too.
type Items struct {
	// PerContainer is the most members one object or elements one array
	// may have (messages of a transcript, keys of a metadata object,
	// annotators of a comparison, dimensions of a score object).
	PerContainer int
	// Total is the most items in the whole value: containers, object
	// members and the numbers, strings and literals of arrays, every one of
	// which decodes into a Go value (a field decoded into any boxes each
	// number: tens of millions of them in a 97 KB .eval took 2.2 GiB).
	Total int
}

// ItemsFor is the bound on a value under the byte limit max: both counts
// grow with it, so the flag that raises the byte limit raises them too.
// At the default limit (96 MiB): 200,000 items in one container and
// 2,000,000 in all (a member costs a decoder about 150 bytes, a boxed
// number about 40: either way well under the import's 1 GiB). Real transcripts and samples hold a few thousand
// messages and events; the hostile shapes that reach these counts decode
// within the import's 1 GiB (TestHostileMemory).
func ItemsFor(max int64) Items {
	scale := max / (96 << 20)
	if scale < 1 {
		scale = 1
	}
	return Items{PerContainer: int(200_000 * scale), Total: int(2_000_000 * scale)}
}

// ItemsError is a value over its Items bound.
type ItemsError struct {
	Path  string // JSON path of the container, "" for the value itself
	Count int    // items counted when the bound was passed
	Total bool   // the total bound, not one container's
	Max   int
}

func (e *ItemsError) Error() string {
	if e.Path == "" {
		return e.Msg()
	}
	return e.Path + ": " + e.Msg()
}

// Msg is the error without its path, for errors that give the path apart.
func (e *ItemsError) Msg() string {
	if e.Total {
		return limit.Count("the value holds", uint64(e.Max), "items (objects, arrays, their members and elements)")
	}
	return limit.Count("holds", uint64(e.Max), "items")
}

// frame is one open container of CheckItems' walk.
type frame struct {
	obj   bool
	items int
	key   []byte // an object's last key
	open  bool   // a member or element has started since the last comma
}

// CheckItems walks the JSON text b (assumed well formed; a broken one is
// left to the decoder, which says where) and returns an *ItemsError for the
// first container, or the whole, past lim. It reads no more than the bytes
// and allocates only the stack of open containers.
func CheckItems(b []byte, lim Items) error {
	// Every item takes two bytes at least ("1,", "{}" then ","): a value
	// shorter than twice the smaller bound cannot pass either, and the
	// usual value (a comparison, a line) is not walked at all.
	if len(b) <= 2*min(lim.PerContainer, lim.Total) {
		return nil
	}
	var stack []frame
	total := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			end := stringEnd(b, i+1)
			if n := len(stack); n > 0 {
				top := &stack[n-1]
				if top.obj && !top.open {
					// A key: the start of a member.
					top.key = b[i+1 : max(i+1, end)]
					if err := top.start(&total, lim, stack); err != nil {
						return err
					}
				} else if !top.obj && !top.open {
					// A string element of an array.
					if err := top.start(&total, lim, stack); err != nil {
						return err
					}
				}
			}
			if end < 0 {
				return nil
			}
			i = end
		case '{', '[':
			if n := len(stack); n > 0 && !stack[n-1].obj && !stack[n-1].open {
				if err := stack[n-1].start(nil, lim, stack); err != nil {
					return err
				}
			}
			total++
			if total > lim.Total {
				return &ItemsError{Path: pathOf(stack), Count: total, Total: true, Max: lim.Total}
			}
			stack = append(stack, frame{obj: c == '{'})
		case '}', ']':
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				stack[n-1].open = false
			}
		case ' ', '\t', '\n', '\r', ':':
		default:
			// A number, true, false or null: in an array, an element,
			// counted in the whole too.
			if n := len(stack); n > 0 && !stack[n-1].obj && !stack[n-1].open {
				if err := stack[n-1].start(&total, lim, stack); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// start counts a member or element of f (the top of stack); total, when
// given, counts it towards the whole.
func (f *frame) start(total *int, lim Items, stack []frame) error {
	f.open = true
	f.items++
	if f.items > lim.PerContainer {
		return &ItemsError{Path: pathOf(stack), Count: f.items, Max: lim.PerContainer}
	}
	if total != nil {
		*total++
		if *total > lim.Total {
			return &ItemsError{Path: pathOf(stack), Count: *total, Total: true, Max: lim.Total}
		}
	}
	return nil
}

// pathOf is the JSON path of the innermost container of stack, as the
// decoders' errors write it (metadata.tags[3]).
func pathOf(stack []frame) string {
	var b strings.Builder
	for i := 0; i < len(stack)-1; i++ {
		parent := &stack[i]
		if parent.obj {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(parent.key)
		} else {
			b.WriteString("[" + strconv.Itoa(parent.items-1) + "]")
		}
	}
	return b.String()
}

// stringEnd is the index of the quote that ends the string whose text
// starts at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		j += i
		// An odd number of backslashes before it escapes it.
		k := j - 1
		for k >= i && b[k] == '\\' {
			k--
		}
		if (j-1-k)%2 == 0 {
			return j
		}
		i = j + 1
	}
}
