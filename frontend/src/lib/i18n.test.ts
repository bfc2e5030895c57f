import { describe, expect, it } from 'vitest'
import { dictionaries, resolveLang, i18n, pastSummary, reasonText, retryText } from './i18n.svelte'

describe('dictionaries', () => {
  it('have the same keys and no empty strings', () => {
    const en = Object.keys(dictionaries.en).sort()
    const zh = Object.keys(dictionaries['zh-CN']).sort()
    expect(zh).toEqual(en)
    for (const lang of ['en', 'zh-CN'] as const) {
      for (const [k, v] of Object.entries(dictionaries[lang])) {
        expect(v.trim(), `${lang} ${k}`).not.toBe('')
      }
    }
  })
  it('keep placeholders in both languages', () => {
    for (const [k, v] of Object.entries(dictionaries.en)) {
      const vars = v.match(/\{\w+\}/g) ?? []
      for (const p of vars) expect(dictionaries['zh-CN'][k as keyof typeof dictionaries.en]).toContain(p)
    }
  })
})

describe('resolveLang', () => {
  it.each([
    ['system', 'zh-CN', [], 'zh-CN'],
    ['system', 'en', ['zh-CN'], 'en'],
    ['system', '', ['zh-TW', 'en'], 'zh-CN'],
    ['system', '', [], 'en'],
    ['en', 'zh-CN', [], 'en'],
    ['zh-CN', 'en', [], 'zh-CN'],
  ])('%s + %s + %j -> %s', (setting, os, browser, want) => {
    expect(resolveLang(setting, os, browser as string[])).toBe(want)
  })
})

describe('t', () => {
  it('switches language and fills placeholders', () => {
    i18n.lang = 'zh-CN'
    expect(i18n.t('goal.start')).toBe('开始')
    expect(i18n.t('error.backend', { msg: 'x' })).toContain('x')
    i18n.lang = 'en'
    expect(i18n.t('goal.start')).toBe('Start')
  })
})

describe('reasonText', () => {
  it('words the person\'s commands in the UI language and leaves other reasons as they are', () => {
    i18n.lang = 'zh-CN'
    expect(reasonText({ reason: 'stopped by the person', by: 'stop' })).toBe('你停止了任务')
    expect(reasonText({ reason: 'the agent seems stuck: same tap', by: '' })).toBe('the agent seems stuck: same tap')
    expect(reasonText({ reason: 'x', by: 'no_such_trigger' })).toBe('x')
    expect(reasonText({ reason: '', by: 'start' })).toBe('')
    expect(reasonText({ reason: 'tap(1,2) needs your confirmation: …', by: '', state: 'WaitingForUser', request: { kind: 'confirm' } })).toBe(
      i18n.t('request.confirmTitle'),
    )
    i18n.lang = 'en'
  })
})

// History's last line of a past task (issue 30: in the Chinese UI it read
// "stopped by the person", and a cut-off task's note, in English).
describe('pastSummary', () => {
  it('words the engine\'s reasons and what a cut-off task means in the UI language, the model\'s summary as written', () => {
    i18n.lang = 'zh-CN'
    try {
      expect(pastSummary({ state: 'Stopped', summary: 'stopped by the person', why: { code: 'stopped_by_person' } })).toBe('你停止了任务')
      expect(pastSummary({ state: 'Interrupted', summary: 'The run was cut off before it ended (Tandem was closed or crashed); it can be resumed.' })).toBe(
        i18n.t('history.cutOff'),
      )
      expect(pastSummary({ state: 'Elsewhere', summary: 'Going on in another Tandem: follow or stop it there.' })).toBe(i18n.t('history.elsewhere'))
      expect(pastSummary({ state: 'Done', summary: 'The counter is open.' })).toBe('The counter is open.')
      expect(pastSummary({ state: 'Planning', summary: '' })).toBe('')
      for (const k of ['history.cutOff', 'history.elsewhere'] as const) expect(i18n.t(k)).toMatch(/[\u4e00-\u9fff]/)
    } finally {
      i18n.lang = 'en'
    }
    // On its own line a reason reads as a sentence (its words follow "Stopped — " in the bar).
    expect(pastSummary({ state: 'Stopped', summary: 'stopped by the person', why: { code: 'stopped_by_person' } })).toBe('You stopped the task')
  })
})

describe('retryText', () => {
  it('says why the call is slow and when it is tried again, in both languages', () => {
    i18n.lang = 'en'
    expect(retryText({ attempt: 1, of: 4, wait_ms: 2400, status: 429 })).toBe('The model server is limiting requests (429) · trying again in 2 s (attempt 2 of 4)')
    expect(retryText({ attempt: 2, of: 4, wait_ms: 300, status: 502 })).toMatch(/error \(502\).*in 1 s \(attempt 3 of 4\)/)
    expect(retryText({ attempt: 1, of: 4, wait_ms: 1000 })).toMatch(/did not answer/)
    i18n.lang = 'zh-CN'
    expect(retryText({ attempt: 1, of: 4, wait_ms: 5000, status: 429 })).toBe('模型服务正在限流（429） · 5 秒后重试（第 2 次，共 4 次）')
    i18n.lang = 'en'
  })
})
