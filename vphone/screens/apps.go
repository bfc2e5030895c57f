// Package screens is the virtual phone's apps: their state, each screen as
// a tree of nodes built from that state (class, text, resource id, bounds,
// what a tap does), the `uiautomator dump` of the tree and the picture of
// it, so a tap at a node's centre changes both consistently. It is apart
// from the phone because it knows no wire, shell or fault: the phone holds
// one Model under its lock and turns commands and touches into its calls.
package screens

import "image/color"

// App is one installed app of the virtual phone.
type App struct {
	Package  string
	Label    string
	Activity string // fully qualified activity class
	color    color.RGBA
	glyph    string // what the launcher icon shows
}

// Component is "pkg/activity" in the short form am and dumpsys use.
func (a App) Component() string { return a.Package + "/" + a.Activity }

// Packages of the built-in apps.
const (
	PkgLauncher = "com.android.launcher3"
	PkgCounter  = "com.tandem.counter"
	PkgNotes    = "com.tandem.notes"
	PkgList     = "com.tandem.list"
	PkgDialog   = "com.tandem.dialog"
	PkgSettings = "com.android.settings"
	PkgShop     = "com.tandem.shop"
	PkgLogin    = "com.tandem.login"
	PkgAnim     = "com.tandem.anim"
	PkgGame     = "com.tandem.game"
	PkgForm     = "com.tandem.form"
	PkgChat     = "com.tencent.mm" // a WeChat-like Chinese screen
)

// Input methods.
const (
	IMELatin = "com.android.inputmethod.latin/.LatinIME"
	IMEADB   = "com.android.adbkeyboard/.AdbIME"
)

func builtinApps() []App {
	return []App{
		{PkgCounter, "Counter", "com.tandem.counter.MainActivity", rgb(0x1e, 0x88, 0xe5), "+1"},
		{PkgNotes, "Notes", "com.tandem.notes.MainActivity", rgb(0xf9, 0xa8, 0x25), "N"},
		{PkgList, "List", "com.tandem.list.MainActivity", rgb(0x43, 0xa0, 0x47), "≡"},
		{PkgDialog, "Dialog", "com.tandem.dialog.MainActivity", rgb(0x8e, 0x24, 0xaa), "D"},
		{PkgSettings, "Settings", "com.android.settings.Settings", rgb(0x54, 0x6e, 0x7a), "S"},
		{PkgShop, "Shop", "com.tandem.shop.CheckoutActivity", rgb(0xe5, 0x39, 0x35), "¥"},
		{PkgLogin, "Login", "com.tandem.login.LoginActivity", rgb(0x00, 0x89, 0x7b), "L"},
		{PkgAnim, "Animation", "com.tandem.anim.MainActivity", rgb(0xff, 0x70, 0x43), "A"},
		{PkgGame, "Game", "com.tandem.game.GameActivity", rgb(0x3f, 0x51, 0xb5), "G"},
		{PkgForm, "Form", "com.tandem.form.MainActivity", rgb(0x6d, 0x4c, 0x41), "F"},
		{PkgChat, "微信", "com.tencent.mm.ui.LauncherUI", rgb(0x07, 0xc1, 0x60), "微"},
	}
}

// allApps are the launcher's apps: the built-in ones first, where every
// earlier test finds them, then the chore apps.
func allApps() []App { return append(builtinApps(), choreApps()...) }

// SystemPackages are installed but have no launcher icon.
func SystemPackages() []string {
	return []string{"android", "com.android.systemui", "com.android.shell", "com.android.phone",
		"com.android.providers.settings", "com.android.inputmethod.latin", PkgLauncher}
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 0xff} }
