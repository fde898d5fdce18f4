package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLoadLoopbackOnly(t *testing.T) {
	for _, h := range []string{"http://10.0.0.1:80", "http://example.com", "http://192.168.1.2:8080"} {
		if _, err := Load(context.Background(), h, []string{"/"}, 1, time.Second, 1); err == nil {
			t.Errorf("%s: want a refusal", h)
		}
	}
}

func TestLoad(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res, err := Load(context.Background(), srv.URL, []string{"/", "/bad"}, 4, 5*time.Second, 40)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 40 || res.Errors != 20 {
		t.Errorf("requests %d errors %d, want 40 and 20", res.Requests, res.Errors)
	}
	if res.P99 < res.P50 || res.Max < res.P99 {
		t.Errorf("percentiles out of order: %+v", res)
	}
}
