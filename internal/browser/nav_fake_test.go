package browser

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	cdpkitcdp "github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/cdp/cdptest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// fakePage scripts a session whose Page.navigate answers with res and then
// emits events, and whose history says url/title.
func fakePage(res page.NavigateResult, url, title string, events func(s *cdptest.Session)) *cdptest.Session {
	s := cdptest.New()
	s.Reply("Page.navigate", func(cdptest.Call) (any, error) {
		if events != nil {
			go events(s) // after the reply, as the browser does
		}
		return res, nil
	})
	s.Reply("Page.getNavigationHistory", func(cdptest.Call) (any, error) {
		return page.GetNavigationHistoryResult{Entries: []*page.NavigationEntry{{URL: url, Title: title}}}, nil
	})
	return s
}

func lifecycle(loader cdp.LoaderID, frame cdp.FrameID, name string) page.EventLifecycleEvent {
	return page.EventLifecycleEvent{LoaderID: loader, FrameID: frame, Name: name}
}

func response(loader cdp.LoaderID, typ network.ResourceType, status int64) network.EventResponseReceived {
	return network.EventResponseReceived{LoaderID: loader, Type: typ, Response: &network.Response{Status: status}}
}

func TestNavigateFake(t *testing.T) {
	tests := []struct {
		name       string
		res        page.NavigateResult
		events     func(s *cdptest.Session)
		wantStatus int
		wantErr    error
	}{
		{
			name: "status of the document, not of a subresource or another loader",
			res:  page.NavigateResult{FrameID: "F", LoaderID: "L"},
			events: func(s *cdptest.Session) {
				synctest.Wait() // navigate waits for events
				s.Emit("Network.responseReceived", response("OLD", network.ResourceTypeDocument, 500))
				s.Emit("Network.responseReceived", response("L", network.ResourceTypeDocument, 201))
				s.Emit("Network.responseReceived", response("L", network.ResourceTypeImage, 404))
				s.Emit("Page.lifecycleEvent", lifecycle("OLD", "F", "load"))
				s.Emit("Page.lifecycleEvent", lifecycle("L", "CHILD", "load"))
				s.Emit("Page.lifecycleEvent", lifecycle("L", "F", "DOMContentLoaded"))
				s.Emit("Page.lifecycleEvent", lifecycle("L", "F", "load"))
			},
			wantStatus: 201,
		},
		{
			name: "same-document navigation waits for its commit, not a load",
			res:  page.NavigateResult{FrameID: "F"},
			events: func(s *cdptest.Session) {
				synctest.Wait() // navigate waits for events
				s.Emit("Page.navigatedWithinDocument", page.EventNavigatedWithinDocument{FrameID: "CHILD", URL: "http://x/#a"})
				s.Emit("Page.navigatedWithinDocument", page.EventNavigatedWithinDocument{FrameID: "F", URL: "http://x/#a"})
			},
			wantStatus: 0,
		},
		{
			name:    "same-document navigation that never commits",
			res:     page.NavigateResult{FrameID: "F"},
			wantErr: context.DeadlineExceeded,
		},
		{
			name:    "network error",
			res:     page.NavigateResult{FrameID: "F", LoaderID: "L", ErrorText: "net::ERR_NAME_NOT_RESOLVED"},
			wantErr: driver.ErrNavigationFailed,
		},
		{
			name:    "load never comes",
			res:     page.NavigateResult{FrameID: "F", LoaderID: "L"},
			wantErr: context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		// In a synctest bubble: the events come once navigate waits for
		// them, and the 300 ms deadline passes only when all is blocked.
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := fakePage(tt.res, "http://x/final", "Final", tt.events)
				ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
				defer cancel()
				got, err := navigate(ctx, s, "http://x/")
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("navigate error = %v, want %v", err, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("navigate: %v", err)
				}
				want := driver.NavResult{URL: "http://x/final", Title: "Final", Status: tt.wantStatus}
				if *got != want {
					t.Errorf("navigate = %+v, want %+v", *got, want)
				}
			})
		})
	}
}

func TestNavigateFailsAtEachCall(t *testing.T) {
	boom := errors.New("boom")
	for n := 1; n <= 2; n++ {
		s := fakePage(page.NavigateResult{FrameID: "F", LoaderID: "L"}, "u", "t", func(s *cdptest.Session) {
			s.Emit("Page.lifecycleEvent", lifecycle("L", "F", "load"))
		})
		s.FailCall(n, boom)
		_, err := navigate(t.Context(), s, "http://x/")
		if !errors.Is(err, boom) {
			t.Errorf("with call %d failing: error = %v, want boom", n, err)
		}
		if got, want := s.Methods(), []string{"Page.navigate", "Page.getNavigationHistory"}[:n]; !slices.Equal(got, want) {
			t.Errorf("with call %d failing: calls = %v, want %v", n, got, want)
		}
	}
}

func TestNavigateSessionClosedWhileWaiting(t *testing.T) {
	events := make(chan cdpkitcdp.Event)
	close(events)
	n := &navigation{frame: "F", loader: "L", want: []string{"load"}}
	_, err := n.wait(t.Context(), events)
	if !errors.Is(err, cdpkitcdp.ErrSessionClosed) {
		t.Errorf("wait on a closed stream = %v, want ErrSessionClosed", err)
	}
}
