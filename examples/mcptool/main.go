// Command mcptool is an MCP server of your own that serves cdpkit's
// browser tools beside a tool of its own, over stdio: word_count counts
// the words of the active tab through cdpkit's Go API, on the same
// browser and tabs as the cdpkit tools.
//
//	go run ./mcptool     # an MCP server on stdin/stdout
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// stdout is the protocol stream: logs go to stderr.
	log.SetOutput(os.Stderr)
	b, err := cdpkit.New(nil) // the browser starts on the first call
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	if err := newServer(b).Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}

// wordCountArgs are word_count's arguments.
type wordCountArgs struct {
	Selector string `json:"selector,omitempty" jsonschema:"count only this element's words (CSS selector)"`
}

// wordCount is word_count's result.
type wordCount struct {
	URL   string `json:"url"`
	Words int    `json:"words"`
}

// newServer returns a server with cdpkit's core tools and word_count,
// all on b.
func newServer(b *cdpkit.Browser) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "mcptool", Version: "1"}, nil)
	if err := cdpkit.AddTools(server, b, nil); err != nil {
		log.Fatal(err)
	}
	mcp.AddTool(server, &mcp.Tool{Name: "word_count", Description: "Count the words of the active tab, or of one element."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in wordCountArgs) (*mcp.CallToolResult, wordCount, error) {
			tab, err := b.Tab(ctx, "active")
			if err != nil {
				return nil, wordCount{}, err
			}
			o := &cdpkit.TextOptions{}
			if in.Selector != "" {
				o.Element = &cdpkit.Element{Selector: in.Selector}
			}
			text, err := tab.Text(ctx, o)
			if err != nil {
				return nil, wordCount{}, err // an *cdpkit.Error: "[CODE] message" for the model
			}
			info, err := tab.Info(ctx)
			if err != nil {
				return nil, wordCount{}, err
			}
			n := len(strings.Fields(text.Text))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d words", n)}}},
				wordCount{URL: info.URL, Words: n}, nil
		})
	return server
}
