package app

import (
	"context"

	"github.com/auditscope/auditscope/data/model"
)

// SampleColumns are what the sample list adds for an experiment of plain
// Inspect samples: the tasks, logs and epochs its filters offer, and each
// listed sample's own.
type SampleColumns struct {
	Choices model.SampleChoices
	Fields  map[string]model.SampleFields // by audit key
}

// Samples reads the sample list's columns for the rows of a page of exp.
func (s *Service) Samples(ctx context.Context, exp string, rows []model.AuditRow) (SampleColumns, error) {
	ch, err := kept(ctx, s, "samplechoices\x00"+exp, func(ctx context.Context) (model.SampleChoices, error) {
		return s.r.SampleChoices(ctx, exp)
	})
	if err != nil {
		return SampleColumns{}, err
	}
	fields, err := s.r.SampleFields(ctx, keysOf(rows))
	return SampleColumns{Choices: ch, Fields: fields}, err
}
