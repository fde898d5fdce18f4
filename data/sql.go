package data

import "database/sql"

var errNoRows = sql.ErrNoRows
