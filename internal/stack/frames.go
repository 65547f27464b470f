package stack

import (
	"context"
	"slices"

	"github.com/sigil/sigil/internal/frames"
)

// startFrames binds the export, import and export-and-sign frames (package frames) on a listener of their own, so
// they are an origin apart from every app that embeds them, and records their URL. The embedders are
// cfg.FramesAllowedOrigins, else the browser origins the coordinator allows, less "*": a frame any page could embed
// would seal a user's typed mnemonic to whatever import bundle that page hands it. With no embedder there are no
// frames (the coordinator's origins are "*" alone, and none are named for the frames).
func (s *Stack) startFrames(ctx context.Context, cfg Config) (*server, error) {
	embedders := cfg.FramesAllowedOrigins
	if len(embedders) == 0 {
		embedders = cfg.AllowedOrigins
	}
	embedders = slices.DeleteFunc(slices.Clone(embedders), func(o string) bool { return o == "*" || o == "" })
	if len(embedders) == 0 {
		s.logger.Warn("frames: no embedder origins (--frames-allowed-origins), so the export and import frames are not served")
		return nil, nil
	}
	signer, err := s.coord.SignerPublicKey(ctx)
	if err != nil {
		return nil, err
	}
	handler, err := frames.Handler(frames.Config{SignerPublicKey: signer, EmbedderOrigins: embedders})
	if err != nil {
		return nil, err
	}
	srv, err := s.listen("frames", cfg.FramesListen)
	if err != nil {
		return nil, err
	}
	srv.handler = handler
	s.boot.FramesURL = srv.url
	return srv, nil
}
