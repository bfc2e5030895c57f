// What the backend tells the person arrives as a code with parameters
// (app/said.go, Said) and is worded here in the UI's language; the Go side
// never words a message for the Chinese UI. A code this table does not know
// shows the English text that came with it.
import { i18n, type Lang } from './i18n.svelte'

export interface Said {
  code: string
  params?: Record<string, string>
  text: string
}

type Table = Record<string, string>

const en: Table = {
  device_busy: 'A task is already running on this device: stop it first.',
  device_held: 'This device is in use by {holder}: stop it there, or wait for it to end.',
  'held.window': 'the Tandem window (process {pid})',
  'held.run': 'tandem run (process {pid})',
  'held.mcp': 'the MCP client “{client}” (process {pid})',
  'held.other': 'another Tandem (process {pid})',
  run_gone: 'That task is no longer running.',
  run_elsewhere: 'That task is running in another Tandem: follow or stop it there.',
  no_adb: 'adb is not installed: install it (Debian/Ubuntu: sudo apt install adb) to use phones.',
  no_live_input: 'This mirror takes no live touches; the gesture is sent instead.',
  mirror_down: 'The screen mirror is not running. Restart Tandem.',
  no_goal: 'Type a goal first.',
  not_replayable: 'This task has no steps of the agent’s to run again.',
  no_key: 'No API key is stored for this model: add one in Settings.',
  needs_keyboard: 'Typing this text needs ADB Keyboard on the phone (install it, then try again).',
  device_permission: 'The phone refused the input: on Xiaomi/MIUI turn on “USB debugging (Security settings)” in Developer options.',
  secure_screen: 'The phone shows a secure screen (a password or payment page) that cannot be captured.',
  unsupported: 'This device cannot do that.',
  device_gone: 'The device is gone: check the cable or the connection, then try again.',
  illegal: 'That cannot be done while the task is “{state}”.',
  field: '{text}',
  error: '{text}',
  'field.name_empty': 'Give the model a name.',
  'field.base_url_not_http': 'The base URL “{value}” is not an http(s) address like https://api.openai.com/v1.',
  'field.base_url_has_key': 'Put the API key in the key field, not in the base URL.',
  'field.model_empty': 'Type the model’s name, as the provider spells it.',
  'field.dialect_unknown': 'Unknown reply format “{value}”.',
  'field.variant_unknown': 'This reply format has no variant “{value}”.',
  'field.temperature_range': 'Temperature {value} is outside 0–2.',
  'field.top_p_range': 'top_p {value} must be above 0 and at most 1.',
  'field.context_tokens_range': 'Context length {value} is not a model’s context (2048 or more; 0 keeps 32768).',
  'field.max_tokens_negative': 'Max tokens cannot be negative (0 keeps the model’s default).',
  'field.max_in_flight_range': 'Requests at once must be between 0 (no limit) and {value}.',
  'field.stop_hotkey': '“{value}” cannot be the stop hotkey: it needs Ctrl, Alt, Shift or Super and one key (a letter, a digit, F1–F24, Esc…), e.g. ctrl+alt+k.',
  'scrcpy.missing': 'There is no file at {path}.',
  'scrcpy.not_server': '{path} is not a scrcpy-server file (no version could be read from it).',
  'scrcpy.too_old': 'This is scrcpy-server {version}, which is too old: Tandem speaks 2.0 and newer. The mirror would use screenrecord instead.',
  'scrcpy.too_new': 'This is scrcpy-server {version}, newer than Tandem speaks (2.0 to 4.1). The mirror would use screenrecord instead.',
  'problem.unauthorized': 'Unlock the phone and tap “Allow” on the USB debugging prompt.',
  'problem.no_permissions': 'No permission to use this USB device: add a udev rule for Android phones (Debian: sudo apt install android-sdk-platform-tools-common), then plug it in again.',
  'problem.offline': 'The phone is offline: unplug it and plug it in again, or reconnect over Wi-Fi.',
  'problem.no_answer': 'The phone did not answer: {param}',
  'problem.host_down': 'Nothing answers at {param}: on that computer, start adb for the network (adb -a -P 5037 nodaemon server) and let its port through the firewall.',
  'problem.host_silent': 'No answer from {param}: is that computer on, and the address right?',
  'problem.host_unknown': 'No computer is called {param}: check the name, or give its IP address.',
  'problem.state': 'The phone is {param}.',
  'problem.needs_x11': 'This computer needs an X11 session or XWayland: log in with “GNOME on Xorg” or enable XWayland.',
  'problem.unsupported_os': 'This computer (macOS) is not supported yet: only phones can be driven here.',
}

const zh: Table = {
  device_busy: '这台设备上已有任务在运行：请先停止它。',
  device_held: '这台设备正被{holder}使用：请在那里停止，或等它结束。',
  'held.window': 'Tandem 窗口（进程 {pid}）',
  'held.run': 'tandem run（进程 {pid}）',
  'held.mcp': 'MCP 客户端“{client}”（进程 {pid}）',
  'held.other': '另一个 Tandem（进程 {pid}）',
  run_gone: '该任务已不在运行。',
  run_elsewhere: '该任务正在另一个 Tandem 中运行：请在那里查看或停止。',
  no_adb: '未安装 adb：请先安装（Debian/Ubuntu：sudo apt install adb）才能使用手机。',
  no_live_input: '当前画面通道不支持实时触控，将改为发送手势。',
  mirror_down: '屏幕镜像服务未运行，请重启 Tandem。',
  no_goal: '请先输入目标。',
  not_replayable: '这个任务没有智能体的步骤可以再运行一次。',
  no_key: '此模型没有保存 API 密钥：请在设置中添加。',
  needs_keyboard: '输入这段文字需要手机上安装 ADB Keyboard（安装后再试）。',
  device_permission: '手机拒绝了输入：小米/MIUI 请在开发者选项中开启“USB 调试（安全设置）”。',
  secure_screen: '手机正显示安全界面（密码或支付页面），无法截取画面。',
  unsupported: '这台设备不支持该操作。',
  device_gone: '设备已断开：请检查数据线或连接后重试。',
  illegal: '任务处于“{state}”状态，现在无法执行此操作。',
  field: '{text}',
  error: '出错了：{text}',
  'field.name_empty': '请给模型起个名字。',
  'field.base_url_not_http': '接口地址“{value}”不是 http(s) 地址（例如 https://api.openai.com/v1）。',
  'field.base_url_has_key': '请把 API 密钥填在密钥栏里，不要写进接口地址。',
  'field.model_empty': '请填写模型名称，与服务商的写法一致。',
  'field.dialect_unknown': '未知的回复格式“{value}”。',
  'field.variant_unknown': '这种回复格式没有变体“{value}”。',
  'field.temperature_range': '温度 {value} 超出了 0–2 的范围。',
  'field.top_p_range': 'top_p {value} 必须大于 0 且不超过 1。',
  'field.context_tokens_range': '上下文长度 {value} 不是有效的模型上下文（2048 或以上；0 表示保持 32768）。',
  'field.max_tokens_negative': '最大 token 数不能为负（0 表示使用模型默认值）。',
  'field.max_in_flight_range': '同时请求数必须在 0（不限）到 {value} 之间。',
  'field.stop_hotkey': '“{value}”不能作为停止快捷键：须含 Ctrl、Alt、Shift 或 Super 和一个键（字母、数字、F1–F24、Esc…），例如 ctrl+alt+k。',
  'scrcpy.missing': '{path} 不存在。',
  'scrcpy.not_server': '{path} 不是 scrcpy-server 文件（无法从中读出版本）。',
  'scrcpy.too_old': '这是 scrcpy-server {version}，版本太旧：Tandem 支持 2.0 及更新版本。镜像将改用 screenrecord。',
  'scrcpy.too_new': '这是 scrcpy-server {version}，比 Tandem 支持的版本（2.0 至 4.1）更新。镜像将改用 screenrecord。',
  'problem.unauthorized': '请解锁手机，并在“允许 USB 调试”提示中点击“允许”。',
  'problem.no_permissions': '没有使用此 USB 设备的权限：请为安卓手机添加 udev 规则（Debian：sudo apt install android-sdk-platform-tools-common），然后重新插入。',
  'problem.offline': '手机处于离线状态：请拔下后重新插入，或重新通过 Wi-Fi 连接。',
  'problem.no_answer': '手机没有响应：{param}',
  'problem.host_down': '{param} 没有响应：请在那台电脑上以网络方式启动 adb（adb -a -P 5037 nodaemon server），并在防火墙中放行该端口。',
  'problem.host_silent': '{param} 没有回应：那台电脑开着吗？地址对吗？',
  'problem.host_unknown': '找不到名为 {param} 的电脑：请检查名称，或填写它的 IP 地址。',
  'problem.state': '手机状态为 {param}。',
  'problem.needs_x11': '这台电脑需要 X11 会话或 XWayland：请以“GNOME on Xorg”登录，或启用 XWayland。',
  'problem.unsupported_os': '暂不支持这台电脑（macOS）：这里只能操作手机。',
}

export const saidTables: Record<Lang, Table> = { en, 'zh-CN': zh }

/** saidText words a Said in the UI's language (its English text when the code is unknown). */
export function saidText(s: Said, lang: Lang = i18n.lang): string {
  const pattern = saidTables[lang][s.code]
  if (!pattern) return s.text
  const params: Record<string, string> = { ...s.params, text: s.text }
  if (s.code === 'device_held') params.holder = holderText({ door: params.door ?? '', client: params.client, pid: Number(params.pid) || 0 }, lang)
  // A run state is worded as the rest of the UI words it.
  const state = params.state ? `state.${params.state}` : ''
  if (state && i18n.has(state)) params.state = i18n.t(state as Parameters<typeof i18n.t>[0])
  return pattern.replace(/\{(\w+)\}/g, (m, k: string) => params[k] ?? m)
}

/** holderText names who in another Tandem drives a device (devices.Holder). */
export function holderText(h: { door: string; client?: string; pid: number }, lang: Lang = i18n.lang): string {
  const t = saidTables[lang]
  const door = h.client ? 'mcp' : ['window', 'run', 'mcp'].includes(h.door) ? h.door : 'other'
  const pattern = t[`held.${door}`] ?? en[`held.${door}`]!
  return pattern.replace('{pid}', String(h.pid)).replace('{client}', h.client ?? '')
}

/** parseSaid reads a Said from a rejected backend call's text, or null. */
export function parseSaid(message: string): Said | null {
  if (!message.startsWith('{')) return null
  try {
    const v = JSON.parse(message) as Partial<Said>
    return typeof v.code === 'string' && typeof v.text === 'string' ? (v as Said) : null
  } catch {
    return null
  }
}

/** problemText words why a device cannot be used, in the UI's language. */
export function problemText(d: { problem: string; problem_code?: string; problem_param?: string }, lang: Lang = i18n.lang): string {
  if (!d.problem_code) return d.problem
  return saidText({ code: `problem.${d.problem_code}`, params: { param: d.problem_param ?? '' }, text: d.problem }, lang)
}
