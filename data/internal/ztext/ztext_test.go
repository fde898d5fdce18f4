package ztext

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	texts := [][]byte{nil, []byte("{}"), []byte(strings.Repeat(`{"role": "user", "content": "héllo"}`, 5000))}
	var wg sync.WaitGroup
	for range 4 { // concurrently, as the import's workers call it
		for _, b := range texts {
			wg.Go(func() {
				z := Compress(b)
				got, err := Decompress(z)
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, b) {
					t.Errorf("round trip of %d bytes gave %d", len(b), len(got))
				}
				if len(b) > 1000 && len(z) > len(b)/10 {
					t.Errorf("%d bytes of repeated text compressed to %d", len(b), len(z))
				}
			})
		}
	}
	wg.Wait()
	if _, err := Decompress([]byte("not a block")); err == nil {
		t.Error("a text that is not a S2 block decompressed")
	}
}
