// Package views holds the templ components of every page. Components take
// typed view models and do no lookups of their own; their links come from
// package links, one builder per kind of route.
package views
