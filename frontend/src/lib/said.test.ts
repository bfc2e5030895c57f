import { describe, expect, it } from 'vitest'
import { i18n } from './i18n.svelte'
import { errorText } from './backend'
import { holderText, parseSaid, problemText, saidTables, saidText } from './said'

describe('said', () => {
  it('has every code in both languages, with the same placeholders', () => {
    expect(Object.keys(saidTables['zh-CN']).sort()).toEqual(Object.keys(saidTables.en).sort())
    for (const [k, v] of Object.entries(saidTables.en)) {
      for (const p of v.match(/\{\w+\}/g) ?? []) expect(saidTables['zh-CN'][k], k).toContain(p)
    }
  })
  it('words a coded backend error in the UI language, not the English that came with it', () => {
    const rejected = JSON.stringify({ code: 'device_busy', text: 'a task is already running on this device: stop it first' })
    i18n.lang = 'zh-CN'
    expect(errorText(rejected)).toBe('这台设备上已有任务在运行：请先停止它。')
    i18n.lang = 'en'
    expect(errorText(new Error(rejected))).toBe('A task is already running on this device: stop it first.')
  })
  it('names who in another Tandem holds a device, in the UI language', () => {
    const held = { code: 'device_held', params: { door: 'mcp', client: 'claude-code', pid: '42' }, text: 'p is in use by …' }
    expect(saidText(held, 'en')).toBe('This device is in use by the MCP client “claude-code” (process 42): stop it there, or wait for it to end.')
    expect(saidText({ ...held, params: { door: 'run', pid: '7' } }, 'zh-CN')).toBe('这台设备正被tandem run（进程 7）使用：请在那里停止，或等它结束。')
    expect(holderText({ door: 'window', pid: 9 }, 'en')).toBe('the Tandem window (process 9)')
  })
  it('words the run state in an illegal command as the UI does', () => {
    i18n.lang = 'zh-CN'
    expect(saidText({ code: 'illegal', params: { command: 'pause', state: 'Done' }, text: 'engine: cannot pause while Done' })).toContain('“已完成”')
    i18n.lang = 'en'
  })
  it('shows the English text of a code it does not know, and plain errors as they are', () => {
    expect(errorText(JSON.stringify({ code: 'something_new', text: 'the new thing broke' }))).toBe('the new thing broke')
    expect(errorText(new Error('plain'))).toBe('plain')
    expect(parseSaid('{not json')).toBeNull()
    expect(parseSaid('{"code":1}')).toBeNull()
  })
})

describe('device problems', () => {
  it('are worded from their code', () => {
    const d = { problem: 'Unlock the phone and tap “Allow” on the USB debugging prompt.', problem_code: 'unauthorized' }
    expect(problemText(d, 'zh-CN')).toContain('允许 USB 调试')
    expect(problemText({ problem: 'The phone is bootloader.', problem_code: 'state', problem_param: 'bootloader' }, 'zh-CN')).toBe('手机状态为 bootloader。')
    expect(problemText({ problem: 'old backend' }, 'zh-CN')).toBe('old backend')
  })
})
