// Every reason and message the Go side can send reaches a Chinese reader in
// Chinese: the lists of codes are generated from Go (gen/causes.ts from
// engine.CauseCodes, gen/said.ts from backend.SaidCodes), so a code added
// there without words here fails this test.
import { describe, expect, it } from 'vitest'
import { causeCodes } from './gen/causes'
import { saidCodes } from './gen/said'
import { dictionaries, i18n, reasonText } from './i18n.svelte'
import { actText, actionWords, askedText, targetLabel, whyText } from './events'
import { saidTables, saidText } from './said'

const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort()
const cjk = /[\u4e00-\u9fff]/

describe('codes from Go', () => {
  it('every Cause code has English and Chinese words, with the same placeholders', () => {
    for (const code of causeCodes) {
      const key = `cause.${code}`
      expect(i18n.has(key), key).toBe(true)
      const en = (dictionaries.en as Record<string, string>)[key]
      const zh = (dictionaries['zh-CN'] as Record<string, string>)[key]
      expect(zh, key).toMatch(cjk)
      expect(placeholders(zh), key).toEqual(placeholders(en))
    }
  })
  it('every Said code has English and Chinese words', () => {
    for (const code of saidCodes) {
      expect(saidTables.en[code], code).toBeTruthy()
      expect(saidTables['zh-CN'][code], code).toBeTruthy()
      if (!['field'].includes(code)) expect(saidTables['zh-CN'][code], code).toMatch(cjk)
    }
  })
  it('a profile field refused by its rule is worded in Chinese, with the value it refused', () => {
    const s = { code: 'field.base_url_not_http', params: { field: 'base_url', value: 'ftp://x' }, text: 'the base URL "ftp://x" is not an http(s) address' }
    expect(saidText(s, 'zh-CN')).toBe('接口地址“ftp://x”不是 http(s) 地址（例如 https://api.openai.com/v1）。')
    expect(saidText({ code: 'error', text: 'open /x: permission denied' }, 'zh-CN')).toBe('出错了：open /x: permission denied')
  })
})

describe('reasons the engine gives itself', () => {
  it('are worded from their code in Chinese, never the engine’s English', () => {
    i18n.lang = 'zh-CN'
    const stopped = (code: string, n = '') => reasonText({ reason: 'engine English', by: '', why: { code, n } })
    expect(stopped('stopped_gracefully')).toBe('已在你允许的步骤之后停止')
    expect(stopped('stopped_by_person')).toBe('你停止了任务')
    expect(stopped('stopping_gracefully', '1')).toBe('按你的要求，最多再执行 1 步后停止')
    expect(stopped('time_limit', '10m0s')).toBe('已达到时间上限（10m0s）')
    i18n.lang = 'en'
    expect(stopped('stopping_gracefully', '1')).toBe('stopping after at most 1 more step, as you asked')
    expect(stopped('stopping_gracefully', '3')).toBe('stopping after at most 3 more steps, as you asked')
  })
})

describe('counts', () => {
  it('say 1 step and 2 steps in English, and 步 in Chinese', () => {
    i18n.lang = 'en'
    expect(actText({ command: 'stop_gracefully', n: 1 })).toBe('Asked to stop after 1 more step')
    expect(actText({ command: 'stop_gracefully', n: 2 })).toBe('Asked to stop after 2 more steps')
    expect(i18n.t('history.steps', { n: '1' })).toBe('1 step')
    expect(i18n.t('history.steps', { n: '12' })).toBe('12 steps')
    i18n.lang = 'zh-CN'
    expect(i18n.t('history.steps', { n: '1' })).toBe('1 步')
    i18n.lang = 'en'
  })
})

describe('the confirm dialog’s words', () => {
  const pay = { label: 'Pay ¥99 com.tandem.shop:id/pay_button', shown: 'Pay ¥99', bounds: { x1: 0, y1: 1000, x2: 1080, y2: 1200 } }
  it('names the element as the screen shows it, never its resource id', () => {
    const tap = { type: 'tap', x: 540, y: 1100 }
    expect(targetLabel(tap, [{ action: tap, status: 'current', element: pay }])).toBe('Pay ¥99')
    expect(targetLabel(tap, [{ action: tap, status: 'current', element: { ...pay, shown: '' } }])).toBe('')
  })
  it('describes an unlabelled tap in words, without coordinates', () => {
    i18n.lang = 'en'
    expect(actionWords({ type: 'tap', x: 540, y: 1100 }, true)).toBe('Tap where the screenshot marks it')
    i18n.lang = 'zh-CN'
    expect(actionWords({ type: 'tap', x: 540, y: 1100 }, false)).toBe('在屏幕上点击')
    expect(actionWords({ type: 'tap', x: 540, y: 1100 }, true)).not.toMatch(/\d/)
    i18n.lang = 'en'
  })
})

describe('an answer keeps its question', () => {
  it('says what the agent asked, and what had stopped the run before Keep going', () => {
    i18n.lang = 'zh-CN'
    expect(askedText({ kind: 'question', message: 'Which colour?' })).toBe('智能体问：“Which colour?”')
    expect(askedText({ kind: 'model_error', message: 'the model call failed: …', cause: { code: 'model_unreachable', detail: 'http://x' } })).toBe(
      i18n.t('request.modelErrorTitle'),
    )
    i18n.lang = 'en'
  })
})

describe('why a step needs confirming', () => {
  it('says what could not be read in the UI’s language, not the engine’s English', () => {
    i18n.lang = 'zh-CN'
    const t = whyText({ by: 'unread', what: 'labels', detail: "the screen's labels could not be read" })
    expect(t).toBe('Tandem 无法读取这个屏幕上的文字，无法判断这一步是否敏感。')
    expect(whyText({ by: 'word', detail: '支付' })).toContain('“支付”')
    i18n.lang = 'en'
  })
})
