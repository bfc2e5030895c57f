package notify

import (
	"encoding/xml"
	"strings"
	"testing"
)

// A toast's content is well-formed XML whatever the note says, and says
// it (text with markup characters, Chinese).
func TestToastXMLKeepsTheWords(t *testing.T) {
	n := Note{Summary: "Tandem：手机 A 需要你", Body: `Confirm: tap "Pay" <now> & go`}
	x := toastXML(n)
	var doc struct {
		Texts []string `xml:"visual>binding>text"`
	}
	if err := xml.Unmarshal([]byte(x), &doc); err != nil {
		t.Fatalf("%s: %v", x, err)
	}
	if len(doc.Texts) != 2 || doc.Texts[0] != n.Summary || doc.Texts[1] != n.Body {
		t.Fatalf("the toast says %q", doc.Texts)
	}
	if !strings.Contains(x, `template="ToastGeneric"`) {
		t.Fatal(x)
	}
}
