package driver

// Download is one download the browser began.
type Download struct {
	ID    int    `json:"id"`
	URL   string `json:"url"`
	Name  string `json:"name"`           // the file's name
	Path  string `json:"path,omitempty"` // where it is, once completed
	Bytes int64  `json:"bytes"`
	State string `json:"state"`
	Error string `json:"error,omitempty"` // why it was refused or canceled
	Frame string `json:"-"`
	// GUID is the backend's own name for the download.
	GUID string `json:"-"`
	// Owner is the session whose tab began it; nil for the unscoped view.
	Owner *Scope `json:"-"`
}

// Download states, the same strings on every backend.
const (
	DownloadInProgress = "in_progress"
	DownloadCompleted  = "completed"
	DownloadCanceled   = "canceled"
	DownloadRefused    = "refused"
)
