// What the run asks, from the person's side: a confirmation names the
// button as the screen shows it (never its resource id or coordinates), and
// a model server that is down offers no hint for the agent (it could not
// reach the agent) and is worded in the UI's language.
import { afterEach, describe, expect, it } from 'vitest'
import { flushSync, mount, unmount } from 'svelte'
import RequestDialog from './RequestDialog.svelte'
import { fromSnapshot, type Request } from '../lib/events'
import { i18n } from '../lib/i18n.svelte'
import { store } from '../lib/store.svelte'
import { answers } from '../lib/gen/answers'

let app: Record<string, unknown> | null = null
afterEach(() => {
  if (app) unmount(app)
  app = null
  document.body.innerHTML = ''
  i18n.lang = 'en'
})

const pay = { label: 'Pay ¥99 com.tandem.shop:id/pay_button', shown: 'Pay ¥99', bounds: { x1: 0, y1: 1000, x2: 1080, y2: 1200 } }
const tap = { type: 'tap', x: 540, y: 1100 }

function render(request: Request, todo = [{ action: tap, status: 'current' as const, element: pay }]) {
  store.selected = 'p1'
  store.runs = {
    p1: fromSnapshot({ id: 'r1', device: 'p1', goal: 'buy it', state: 'WaitingForUser', seq: 1, request,
      usage: { total: { prompt_tokens: 0, completion_tokens: 0, cost: 0 }, calls: 0, steps: 0, elapsed_ms: 0 },
      plan: { todo } }, 1),
  }
  const target = document.createElement('div')
  document.body.append(target)
  app = mount(RequestDialog, { target })
  flushSync()
  return target
}

describe('the confirm dialog', () => {
  it('names the button by its words: no resource id, no coordinates', () => {
    const el = render({ kind: 'confirm', message: 'tap(540,1100) needs your confirmation: word “pay”', action: tap,
      why: { by: 'word', detail: 'pay' } })
    const text = el.textContent ?? ''
    expect(text).toContain('Press “Pay ¥99”')
    expect(text).not.toContain('com.tandem.shop')
    expect(text).not.toMatch(/540|1100/)
  })
  it('says the engine’s label as it is, and words an unlabelled tap without coordinates', () => {
    i18n.lang = 'zh-CN'
    let text = render({ kind: 'confirm', message: 'm', action: tap, label: 'Pay ¥99', why: { by: 'word', detail: 'pay' } }).textContent ?? ''
    expect(text).toContain('点击“Pay ¥99”')
    unmount(app!)
    app = null
    text = render({ kind: 'confirm', message: 'tap(540,1100) needs your confirmation', action: tap, why: { by: 'model', detail: '付款' } }, []).textContent ?? ''
    expect(text).toContain('点击')
    expect(text).not.toMatch(/540|1100|needs your confirmation/)
  })
})

describe('a confirmation on a screen that could not be read', () => {
  it('says which reading failed and the device’s words for why, in Chinese too', () => {
    const req: Request = { kind: 'confirm', message: 'm', action: tap, why: { by: 'unread', what: 'app', detail: 'the app in front could not be read' },
      cause: { code: 'app_unread', detail: 'dumpsys window: Permission Denial' } }
    let text = render(req).textContent ?? ''
    expect(text).toContain('The app in front could not be read: dumpsys window: Permission Denial')
    unmount(app!)
    app = null
    i18n.lang = 'zh-CN'
    text = render(req).textContent ?? ''
    expect(text).toContain('无法读取前台应用：dumpsys window: Permission Denial')
  })
})

describe('the model-down dialog', () => {
  it('says where nothing answers, in Chinese, and offers no hint for the agent', () => {
    i18n.lang = 'zh-CN'
    const el = render({ kind: 'model_error', message: 'the model server at http://127.0.0.1:9/v1 could not be reached (model server unreachable: dial tcp 127.0.0.1:9: connect: connection refused)',
      cause: { code: 'model_unreachable', detail: 'http://127.0.0.1:9/v1' } })
    const text = el.textContent ?? ''
    expect(text).toContain('模型服务（http://127.0.0.1:9/v1）没有响应')
    expect(text).not.toMatch(/dial tcp|connection refused/)
    expect(el.querySelector('[data-testid="request-hint"]')).toBeNull()
    expect(el.querySelector('[data-testid="keep-going"]')).not.toBeNull()
  })
  it('keeps the hint where it helps: a reply the agent could not use', () => {
    const el = render({ kind: 'model_error', message: 'm', cause: { code: 'model_unusable', detail: 'no action' } })
    expect(el.querySelector('[data-testid="request-hint"]')).not.toBeNull()
  })
})

// The dialog offers exactly the answers of the one list (engine/answers.go,
// gen/answers.ts) for each kind of request, the same the command line and
// the MCP form offer: with a hint typed where it helps, the hint instead
// of "keep going".
describe('the answers the dialog offers', () => {
  const offered = (el: HTMLElement) => [...el.querySelectorAll('[data-answer]')].map((b) => b.getAttribute('data-answer'))
  it.each(Object.keys(answers) as (keyof typeof answers)[])('%s: the list’s answers', (kind) => {
    const el = render({ kind, message: 'm', cause: { code: 'model_unusable', detail: 'x' } }, [])
    const want = answers[kind].map((a) => a.answer)
    const shown = offered(el)
    const box = el.querySelector('input, textarea') as HTMLInputElement | HTMLTextAreaElement | null
    if (box) {
      box.value = 'try the other tab'
      box.dispatchEvent(new Event('input'))
      flushSync()
    }
    const all = new Set([...shown, ...offered(el)])
    expect([...all].sort()).toEqual([...want].sort())
  })
})
