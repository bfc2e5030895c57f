package notify

import (
	"bytes"
	"encoding/xml"
)

// toastXML is a Windows toast's content: the generic template with the
// summary as its title and the body as its text
// (https://learn.microsoft.com/windows/apps/design/shell/tiles-and-notifications/toast-schema).
// Built on every system so its escaping is tested everywhere.
func toastXML(n Note) string {
	var b bytes.Buffer
	b.WriteString(`<toast activationType="foreground"><visual><binding template="ToastGeneric"><text>`)
	_ = xml.EscapeText(&b, []byte(n.Summary))
	b.WriteString(`</text><text>`)
	_ = xml.EscapeText(&b, []byte(n.Body))
	b.WriteString(`</text></binding></visual></toast>`)
	return b.String()
}
