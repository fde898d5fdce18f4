package data

import (
	"database/sql"
	"encoding/json"
)

var errNoRows = sql.ErrNoRows

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
