package driver

// Download limits a backend applies when its options leave them zero, and
// how many downloads its table keeps.
const (
	// DefaultDownloadMax caps one download.
	DefaultDownloadMax = 100 << 20
	// DefaultDownloadFiles bounds the downloads one session may keep.
	DefaultDownloadFiles = 100
	// DefaultDownloadTotal bounds the bytes one session's downloads hold.
	DefaultDownloadTotal = 1 << 30
	// DownloadsKept bounds a backend's download table.
	DownloadsKept = 200
)

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
