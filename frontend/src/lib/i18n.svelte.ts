// UI strings in English and Simplified Chinese. The language follows the OS
// (reported by the Go side, which reads LANG/LC_*) unless the person picks one.
// Every key must exist in both dictionaries; i18n.test.ts enforces it.

export type Lang = 'en' | 'zh-CN'

const en = {
  'app.tagline': 'Your AI hands, your eyes on the wheel',
  'top.about': 'About Tandem',
  'top.language': 'Language',
  'top.theme': 'Theme',
  'theme.system': 'Follow system',
  'theme.light': 'Light',
  'theme.dark': 'Dark',
  'lang.system': 'Follow system',
  'model.none': 'No model set up',
  'model.noneHint': 'Model settings arrive with the settings screen: any OpenAI-compatible API, cloud or local.',
  'devices.title': 'Devices',
  'devices.emptyTitle': 'No device connected',
  'devices.emptyBody': 'Plug in a phone with USB debugging on, or choose This computer.',
  'devices.usbHelp': 'How to turn on USB debugging',
  'devices.usbSteps': 'Settings → About phone → tap “Build number” 7 times, then Settings → Developer options → USB debugging.',
  'mirror.title': 'Screen',
  'mirror.emptyTitle': 'Nothing to show yet',
  'mirror.emptyBody': 'Pick a device and its screen appears here, live. Click or drag on it at any time to take over.',
  'timeline.title': 'Steps',
  'timeline.emptyTitle': 'No steps yet',
  'timeline.emptyBody': 'Type a goal below and press Start. Each step the agent takes shows up here with what it saw, thought and did.',
  'goal.placeholder': 'What should Tandem do? e.g. “Open Settings and turn on dark mode”',
  'goal.start': 'Start',
  'goal.recent': 'Recent goals',
  'goal.needDevice': 'Choose a device first',
  'goal.needGoal': 'Type a goal first',
  'control.pause': 'Pause',
  'control.resume': 'Resume',
  'control.takeOver': 'Take over',
  'control.handBack': 'Hand back',
  'control.stop': 'Stop',
  'control.stopAfter': 'Stop after this step',
  'control.idle': 'Idle — no task running',
  'about.title': 'About Tandem',
  'about.body': 'Tandem lets an AI agent operate your phone or this computer while you watch, pause, take over or stop it at any moment.',
  'about.version': 'Version',
  'about.commit': 'Commit',
  'about.data': 'Run records',
  'about.settings': 'Settings file',
  'about.close': 'Close',
  'warning.dismiss': 'Dismiss',
  'error.backend': 'Tandem’s backend did not answer: {msg}',
  'welcome.title': 'Welcome to Tandem',
  'welcome.checking': 'Checking this computer…',
  'welcome.adb': 'Phone connection (adb)',
  'welcome.adbMissing': 'adb is not installed. Install Android platform-tools (the .deb installs it for you).',
  'welcome.adbNoServer': 'adb is installed but its server did not answer: {msg}',
  'welcome.adbNoDevice': 'adb works, but no phone is connected. Plug one in with USB debugging on.',
  'welcome.adbDevices': 'Phones found: {list}',
  'welcome.adbKeyboard': 'To type Chinese and other text, install ADB Keyboard on the phone (not bundled); Tandem explains it when a step needs it.',
  'welcome.vphone': 'No phone? Try the virtual phone',
  'welcome.vphoneStart': 'Start the virtual phone',
  'welcome.vphoneMissing': 'The virtual phone is not available in this build yet.',
  'welcome.models': 'Models',
  'welcome.modelsFound': 'Local model server running: {name} at {url} ({models})',
  'welcome.modelsNone': 'No local model server found (Ollama 11434, LM Studio 1234, vLLM 8000). Add a cloud API key in Settings.',
  'welcome.done': 'Got it',
} as const

export type Key = keyof typeof en

const zh: Record<Key, string> = {
  'app.tagline': 'AI 动手，你来掌舵',
  'top.about': '关于 Tandem',
  'top.language': '语言',
  'top.theme': '主题',
  'theme.system': '跟随系统',
  'theme.light': '浅色',
  'theme.dark': '深色',
  'lang.system': '跟随系统',
  'model.none': '尚未设置模型',
  'model.noneHint': '模型设置将在设置页中提供：支持任何兼容 OpenAI 的接口，云端或本地均可。',
  'devices.title': '设备',
  'devices.emptyTitle': '没有已连接的设备',
  'devices.emptyBody': '请用 USB 连接已开启“USB 调试”的手机，或选择“这台电脑”。',
  'devices.usbHelp': '如何开启 USB 调试',
  'devices.usbSteps': '设置 → 关于手机 → 连续点击“版本号”7 次，然后 设置 → 开发者选项 → USB 调试。',
  'mirror.title': '屏幕',
  'mirror.emptyTitle': '暂无画面',
  'mirror.emptyBody': '选择一个设备后，这里会实时显示它的屏幕。随时在画面上点击或拖动即可接管。',
  'timeline.title': '步骤',
  'timeline.emptyTitle': '还没有步骤',
  'timeline.emptyBody': '在下方输入目标并点击“开始”。智能体的每一步——看到了什么、怎么想、做了什么——都会显示在这里。',
  'goal.placeholder': '想让 Tandem 做什么？例如“打开设置并开启深色模式”',
  'goal.start': '开始',
  'goal.recent': '最近的目标',
  'goal.needDevice': '请先选择设备',
  'goal.needGoal': '请先输入目标',
  'control.pause': '暂停',
  'control.resume': '继续',
  'control.takeOver': '接管',
  'control.handBack': '交还',
  'control.stop': '停止',
  'control.stopAfter': '本步后停止',
  'control.idle': '空闲——没有正在运行的任务',
  'about.title': '关于 Tandem',
  'about.body': 'Tandem 让 AI 智能体操作你的手机或这台电脑，你可以随时观看、暂停、接管或停止。',
  'about.version': '版本',
  'about.commit': '提交',
  'about.data': '运行记录',
  'about.settings': '设置文件',
  'about.close': '关闭',
  'warning.dismiss': '知道了',
  'error.backend': 'Tandem 后端没有响应：{msg}',
  'welcome.title': '欢迎使用 Tandem',
  'welcome.checking': '正在检查这台电脑…',
  'welcome.adb': '手机连接（adb）',
  'welcome.adbMissing': '未安装 adb。请安装 Android platform-tools（.deb 安装包会自动安装）。',
  'welcome.adbNoServer': '已安装 adb，但其服务没有响应：{msg}',
  'welcome.adbNoDevice': 'adb 正常，但没有连接手机。请用 USB 连接并开启 USB 调试。',
  'welcome.adbDevices': '已找到的手机：{list}',
  'welcome.adbKeyboard': '要输入中文等文字，请在手机上安装 ADB Keyboard（未随附）；需要时 Tandem 会说明。',
  'welcome.vphone': '没有手机？试试虚拟手机',
  'welcome.vphoneStart': '启动虚拟手机',
  'welcome.vphoneMissing': '此版本暂不提供虚拟手机。',
  'welcome.models': '模型',
  'welcome.modelsFound': '本地模型服务正在运行：{name}，地址 {url}（{models}）',
  'welcome.modelsNone': '未找到本地模型服务（Ollama 11434、LM Studio 1234、vLLM 8000）。请在设置中添加云端 API 密钥。',
  'welcome.done': '知道了',
}

export const dictionaries: Record<Lang, Record<Key, string>> = { en, 'zh-CN': zh }

class I18n {
  lang = $state<Lang>('en')

  t = (key: Key, vars: Record<string, string> = {}): string => {
    let s: string = dictionaries[this.lang][key] ?? en[key] ?? key
    for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, v)
    return s
  }
}

export const i18n = new I18n()

/** resolveLang picks the UI language from the setting and the OS locale. */
export function resolveLang(setting: string, osLocale: string, browserLangs: readonly string[] = []): Lang {
  if (setting === 'en' || setting === 'zh-CN') return setting
  const candidates = [osLocale, ...browserLangs].filter(Boolean)
  for (const c of candidates) {
    if (c.toLowerCase().startsWith('zh')) return 'zh-CN'
    if (c) return 'en'
  }
  return 'en'
}
