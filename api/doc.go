// Package api holds the wire types of the coordinator's public API — request envelopes, activity records, every
// activity's parameters and result, and every query — shared by the server (package coordinator) and the Go SDK
// (package client), so the two can never disagree on a field.
//
// Field names, optionality and JSON types follow the reference's generated TypeScript types: an optional field carries
// `omitempty` (package jsonstrict treats every other field as required), 64-bit integers are JSON strings, int32s are
// JSON numbers, and enums are their full string names.
package api
