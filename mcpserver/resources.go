package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tandem/backend"
)

// Each run's record and its HTML report are resources:
// tandem://runs/{id} (the run step by step, as JSON) and
// tandem://runs/{id}/report (the self-contained report).
func addResources(s *mcp.Server, b *backend.Backend) {
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "run", Title: "A run's record", URITemplate: "tandem://runs/{id}",
		MIMEType: "application/json", Description: "A run step by step: goal, device, each step with its action and result, the person's acts, the end."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id, report, ok := runURI(req.Params.URI)
			if !ok {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			if report {
				return readReport(b, req.Params.URI, id)
			}
			d, err := b.RunSteps(id)
			if err != nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			raw, err := json.Marshal(d)
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(raw)}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "run-report", Title: "A run's report", URITemplate: "tandem://runs/{id}/report",
		MIMEType: "text/html", Description: "A run's self-contained HTML report, with its screens."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id, report, ok := runURI(req.Params.URI)
			if !ok || !report {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return readReport(b, req.Params.URI, id)
		})
}

// runURI reads tandem://runs/{id}[/report].
func runURI(uri string) (id string, report, ok bool) {
	rest, ok := strings.CutPrefix(uri, "tandem://runs/")
	if !ok || rest == "" {
		return "", false, false
	}
	id, report = strings.CutSuffix(rest, "/report")
	if id == "" || strings.ContainsAny(id, "/\\") || id == "." || id == ".." {
		return "", false, false
	}
	return id, report, true
}

func readReport(b *backend.Backend, uri, id string) (*mcp.ReadResourceResult, error) {
	path, err := b.ExportReport(id)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html", Text: string(raw)}}}, nil
}
