package adb

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// ErrAppNotFound means no installed app matches the name the model gave.
var ErrAppNotFound = errors.New("app not found")

// apps maps the names people and models use for popular apps to their
// packages, most likely first (vendor variants follow). Names are matched
// after normalize(), so case, spaces and punctuation do not matter.
var apps = []struct {
	names []string
	pkgs  []string
}{
	{[]string{"微信", "wechat", "weixin"}, []string{"com.tencent.mm"}},
	{[]string{"qq"}, []string{"com.tencent.mobileqq"}},
	{[]string{"企业微信", "wecom", "wework"}, []string{"com.tencent.wework"}},
	{[]string{"支付宝", "alipay", "zhifubao"}, []string{"com.eg.android.AlipayGphone"}},
	{[]string{"淘宝", "taobao", "手机淘宝"}, []string{"com.taobao.taobao"}},
	{[]string{"天猫", "tmall"}, []string{"com.tmall.wireless"}},
	{[]string{"闲鱼", "xianyu", "idlefish"}, []string{"com.taobao.idlefish"}},
	{[]string{"抖音", "douyin"}, []string{"com.ss.android.ugc.aweme"}},
	{[]string{"抖音极速版"}, []string{"com.ss.android.ugc.aweme.lite"}},
	{[]string{"tiktok"}, []string{"com.zhiliaoapp.musically", "com.ss.android.ugc.trill"}},
	{[]string{"快手", "kuaishou"}, []string{"com.smile.gifmaker"}},
	{[]string{"美团", "meituan"}, []string{"com.sankuai.meituan"}},
	{[]string{"美团外卖"}, []string{"com.sankuai.meituan.takeoutnew", "com.sankuai.meituan"}},
	{[]string{"大众点评", "dianping"}, []string{"com.dianping.v1"}},
	{[]string{"饿了么", "eleme"}, []string{"me.ele"}},
	{[]string{"小红书", "xiaohongshu", "rednote", "red"}, []string{"com.xingin.xhs"}},
	{[]string{"京东", "jd", "jingdong"}, []string{"com.jingdong.app.mall"}},
	{[]string{"拼多多", "pinduoduo", "pdd"}, []string{"com.xunmeng.pinduoduo"}},
	{[]string{"得物", "dewu", "poizon"}, []string{"com.shizhuang.duapp"}},
	{[]string{"盒马", "hema", "freshippo"}, []string{"com.wudaokou.hippo"}},
	{[]string{"高德地图", "高德", "amap", "gaode"}, []string{"com.autonavi.minimap"}},
	{[]string{"百度地图", "baidumap"}, []string{"com.baidu.BaiduMap"}},
	{[]string{"百度", "baidu"}, []string{"com.baidu.searchbox"}},
	{[]string{"哔哩哔哩", "b站", "bilibili"}, []string{"tv.danmaku.bili"}},
	{[]string{"微博", "weibo"}, []string{"com.sina.weibo"}},
	{[]string{"知乎", "zhihu"}, []string{"com.zhihu.android"}},
	{[]string{"今日头条", "头条", "toutiao"}, []string{"com.ss.android.article.news"}},
	{[]string{"网易云音乐", "网易云", "neteasecloudmusic"}, []string{"com.netease.cloudmusic"}},
	{[]string{"qq音乐", "qqmusic"}, []string{"com.tencent.qqmusic"}},
	{[]string{"腾讯视频", "tencentvideo"}, []string{"com.tencent.qqlive"}},
	{[]string{"爱奇艺", "iqiyi"}, []string{"com.qiyi.video"}},
	{[]string{"优酷", "youku"}, []string{"com.youku.phone"}},
	{[]string{"滴滴出行", "滴滴", "didi"}, []string{"com.sdu.didi.psnger"}},
	{[]string{"携程", "携程旅行", "ctrip", "trip.com"}, []string{"ctrip.android.view"}},
	{[]string{"铁路12306", "12306"}, []string{"com.MobileTicket"}},
	{[]string{"钉钉", "dingtalk"}, []string{"com.alibaba.android.rimet"}},
	{[]string{"飞书", "feishu", "lark"}, []string{"com.ss.android.lark"}},
	{[]string{"云闪付", "unionpay"}, []string{"com.unionpay"}},
	{[]string{"设置", "settings", "系统设置"}, []string{"com.android.settings"}},
	{[]string{"相机", "camera"}, []string{"com.android.camera", "com.android.camera2", "com.google.android.GoogleCamera", "com.huawei.camera", "com.sec.android.app.camera", "com.oppo.camera"}},
	{[]string{"相册", "图库", "照片", "gallery", "photos", "googlephotos"}, []string{"com.google.android.apps.photos", "com.miui.gallery", "com.android.gallery3d", "com.sec.android.gallery3d", "com.huawei.photos", "com.coloros.gallery3d"}},
	{[]string{"电话", "拨号", "phone", "dialer"}, []string{"com.google.android.dialer", "com.android.dialer", "com.android.contacts", "com.samsung.android.dialer"}},
	{[]string{"短信", "信息", "messages", "sms"}, []string{"com.google.android.apps.messaging", "com.android.mms", "com.samsung.android.messaging"}},
	{[]string{"联系人", "通讯录", "contacts"}, []string{"com.google.android.contacts", "com.android.contacts", "com.samsung.android.app.contacts"}},
	{[]string{"时钟", "闹钟", "clock", "alarm"}, []string{"com.google.android.deskclock", "com.android.deskclock", "com.sec.android.app.clockpackage"}},
	{[]string{"日历", "calendar"}, []string{"com.google.android.calendar", "com.android.calendar", "com.samsung.android.calendar"}},
	{[]string{"计算器", "calculator"}, []string{"com.google.android.calculator", "com.android.calculator2", "com.miui.calculator", "com.sec.android.app.popupcalculator"}},
	{[]string{"备忘录", "便签", "笔记", "notes", "memo"}, []string{"com.miui.notes", "com.google.android.keep", "com.samsung.android.app.notes", "com.android.notes"}},
	{[]string{"文件管理", "文件", "files", "filemanager"}, []string{"com.google.android.apps.nbu.files", "com.android.documentsui", "com.android.fileexplorer", "com.mi.android.globalFileexplorer"}},
	{[]string{"应用商店", "playstore", "googleplay", "play商店"}, []string{"com.android.vending", "com.xiaomi.market", "com.huawei.appmarket", "com.heytap.market"}},
	{[]string{"浏览器", "browser"}, []string{"com.android.chrome", "com.android.browser", "com.mi.globalbrowser", "com.sec.android.app.sbrowser"}},
	{[]string{"chrome", "谷歌浏览器", "googlechrome"}, []string{"com.android.chrome"}},
	{[]string{"youtube", "油管"}, []string{"com.google.android.youtube"}},
	{[]string{"whatsapp"}, []string{"com.whatsapp"}},
	{[]string{"gmail", "谷歌邮箱"}, []string{"com.google.android.gm"}},
	{[]string{"googlemaps", "谷歌地图", "maps"}, []string{"com.google.android.apps.maps"}},
	{[]string{"google", "谷歌"}, []string{"com.google.android.googlequicksearchbox"}},
	{[]string{"googledrive", "drive"}, []string{"com.google.android.apps.docs"}},
	{[]string{"keep", "googlekeep"}, []string{"com.google.android.keep"}},
	{[]string{"googletranslate", "谷歌翻译", "translate"}, []string{"com.google.android.apps.translate"}},
	{[]string{"telegram"}, []string{"org.telegram.messenger"}},
	{[]string{"instagram"}, []string{"com.instagram.android"}},
	{[]string{"facebook"}, []string{"com.facebook.katana"}},
	{[]string{"messenger"}, []string{"com.facebook.orca"}},
	{[]string{"x", "twitter"}, []string{"com.twitter.android"}},
	{[]string{"spotify"}, []string{"com.spotify.music"}},
	{[]string{"netflix"}, []string{"com.netflix.mediaclient"}},
	{[]string{"uber"}, []string{"com.ubercab"}},
	{[]string{"amazon"}, []string{"com.amazon.mShop.android.shopping"}},
	{[]string{"outlook"}, []string{"com.microsoft.office.outlook"}},
	{[]string{"teams", "microsoftteams"}, []string{"com.microsoft.teams"}},
	{[]string{"zoom"}, []string{"us.zoom.videomeetings"}},
	{[]string{"linkedin", "领英"}, []string{"com.linkedin.android"}},
	{[]string{"reddit"}, []string{"com.reddit.frontpage"}},
	{[]string{"discord"}, []string{"com.discord"}},
	{[]string{"snapchat"}, []string{"com.snapchat.android"}},
	{[]string{"firefox"}, []string{"org.mozilla.firefox"}},
	{[]string{"pinterest"}, []string{"com.pinterest"}},
	{[]string{"line"}, []string{"jp.naver.line.android"}},
}

// normalize lowercases and drops spaces and punctuation, so "Google Maps",
// "google-maps" and "googlemaps" match.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// resolveApp picks the installed package for name: a package name as is, a
// known app from the table, else the installed package whose name fits best.
func resolveApp(name string, installed []string) (string, error) {
	name = strings.TrimSpace(name)
	has := make(map[string]bool, len(installed))
	for _, p := range installed {
		has[p] = true
	}
	if has[name] {
		return name, nil
	}
	n := normalize(name)
	if n == "" {
		return "", fmt.Errorf("%w: %q is not an app name", ErrAppNotFound, name)
	}
	var known []string
	for _, a := range apps {
		for _, alias := range a.names {
			if normalize(alias) == n {
				known = append(known, a.pkgs...)
			}
		}
	}
	for _, p := range known {
		if has[p] {
			return p, nil
		}
	}
	if p := bestPackage(n, installed); p != "" {
		return p, nil
	}
	if len(known) > 0 {
		return "", fmt.Errorf("%w: %s is not installed (looked for %s)", ErrAppNotFound, name, strings.Join(known, ", "))
	}
	return "", fmt.Errorf("%w: no installed app matches %q", ErrAppNotFound, name)
}

// bestPackage finds the installed package that n names best: a package
// segment equal to n beats one that starts with n, which beats one that
// contains it; later segments (the app's own name) beat earlier ones
// (the vendor's); ties go to the shorter package.
func bestPackage(n string, installed []string) string {
	if len(n) < 3 || !isASCII(n) {
		return ""
	}
	type cand struct {
		pkg   string
		score int
	}
	var cs []cand
	for _, p := range installed {
		segs := strings.Split(strings.ToLower(p), ".")
		best := 0
		for i, s := range segs {
			score := 0
			switch {
			case s == n:
				score = 300
			case strings.HasPrefix(s, n):
				score = 200
			case strings.Contains(s, n):
				score = 100
			default:
				continue
			}
			if i == len(segs)-1 {
				score += 50
			}
			best = max(best, score+i)
		}
		if best > 0 {
			cs = append(cs, cand{p, best})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		return len(cs[i].pkg) < len(cs[j].pkg)
	})
	if len(cs) == 0 {
		return ""
	}
	return cs[0].pkg
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Packages lists the installed packages (`pm list packages`).
func (d *Device) Packages(ctx context.Context) ([]string, error) {
	res, err := d.run(ctx, "pm list packages")
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(l), "package:"); ok && p != "" {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

// Launch starts an app by its name ("微信", "Settings", "com.tencent.mm")
// through its launcher activity.
func (d *Device) Launch(ctx context.Context, name string) error {
	pkgs, err := d.Packages(ctx)
	if err != nil {
		return err
	}
	pkg, err := resolveApp(name, pkgs)
	if err != nil {
		return err
	}
	res, err := d.sh(ctx, "monkey -p "+shellQuote(pkg)+" -c android.intent.category.LAUNCHER 1")
	if err != nil {
		return err
	}
	if out := res.Output(); res.Exit != 0 || strings.Contains(out, "monkey aborted") || strings.Contains(out, "No activities found") {
		return fmt.Errorf("%w: %s (%s) has no launcher activity: %s", ErrAppNotFound, name, pkg, clip(out, 200))
	}
	return nil
}

// AppLabel is the name people use for the app with package pkg (the first
// name of the table above, "微信" for com.tencent.mm), else pkg itself.
func AppLabel(pkg string) string {
	for _, a := range apps {
		for _, p := range a.pkgs {
			if p == pkg {
				return a.names[0]
			}
		}
	}
	return pkg
}

// AppNames are the names a person may give the app with package pkg in a
// rule of their confirmation policy: its names in the table above
// ("支付宝", "alipay"), the package itself, and each part of the package
// after the first ("shop" for com.tandem.shop), so a rule that names the
// app as people know it holds inside the app, not only at its launch.
// The first is AppLabel's, so the engine names the app from the package
// it already read without asking the phone again.
func (d *Device) AppNames(pkg string) []string {
	if pkg == "" {
		return nil
	}
	var names []string
	for _, a := range apps {
		for _, p := range a.pkgs {
			if p == pkg {
				names = append(names, a.names...)
				break
			}
		}
	}
	names = append(names, pkg)
	if segs := strings.Split(pkg, "."); len(segs) > 1 {
		names = append(names, segs[1:]...)
	}
	return names
}

// CurrentApp names the foreground app as AppLabel does; "" when nothing
// has focus. AutoGLM's prompt states it as current_app each step.
func (d *Device) CurrentApp(ctx context.Context) (string, error) {
	pkg, _, err := d.ForegroundApp(ctx)
	if err != nil || pkg == "" {
		return "", err
	}
	return AppLabel(pkg), nil
}
