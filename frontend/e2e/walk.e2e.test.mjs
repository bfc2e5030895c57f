// A new person's walk through the window, kept as screenshots in
// test-artifacts/walk-*.png for a person to look at: first start, Settings,
// a run with pause, take-over, hand-back, a Pay confirmation, a question,
// stop, History, the report, Chinese, dark, all at 960x640 (the window's
// smallest) and the first screens at 1280x800 too. Each screen is also
// checked for what a person would call broken: a region drawn over another
// or leaving the window.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startApp, artifactsDir } from './harness.mjs'
import { startModelServer, toolCall, hold } from './modelserver.mjs'

let app
let model
const problems = []

before(async () => {
  model = await startModelServer()
  app = await startApp()
})

after(async () => {
  await app?.stop()
  await model?.stop()
})

/** look saves the screen and notes any main region overlapping another or leaving the window. */
async function look(name) {
  const { page } = app
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, `walk-${name}.png`) })
  // What is measured is a frame as drawn: the page's own adjustments to a
  // change (a ResizeObserver's, which run before the paint) are made.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))))
  const found = await page.evaluate(() => {
    const sel = {
      devices: '[data-testid="devices"]',
      mirror: '[data-testid="mirror"]',
      pause: '[data-testid="pause-panel"]',
      steps: '[data-testid="timeline"]',
      goalbar: 'footer .goal.panel',
      controls: '[data-testid="controls"]',
      tiles: '[data-testid="tiles"]',
    }
    const boxes = Object.entries(sel)
      .map(([n, s]) => [n, document.querySelector(s)])
      .filter(([, e]) => e && e.getClientRects().length)
      .map(([n, e]) => [n, e.getBoundingClientRect()])
    const out = []
    for (const [n, r] of boxes) if (r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) out.push(`${n} leaves the window`)
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i][1], boxes[j][1]]
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(`${boxes[i][0]} overlaps ${boxes[j][0]}`)
      }
    // Nothing in a region is wider than its place: a list that scrolls
    // sideways has a row cut at its right edge.
    for (const [n, region] of boxes.map(([n]) => [n, document.querySelector(sel[n])]))
      for (const el of [region, ...region.querySelectorAll('*')]) {
        const ox = getComputedStyle(el).overflowX
        if ((ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth + 1)
          out.push(`${n}: ${el.tagName.toLowerCase()}.${[...el.classList].join('.')} is ${el.scrollWidth - el.clientWidth}px too narrow`)
      }
    // A box that scrolls up and down hides more than a sliver (a
    // scrollbar for a few pixels is a row cut for nothing), and one that
    // hides lines below says so with a fade at its foot.
    const fades = (e) => (getComputedStyle(e).webkitMaskImage || getComputedStyle(e).maskImage || 'none') !== 'none'
    const dialogs = [...document.querySelectorAll('[role="dialog"]')].map((d) => [`dialog "${d.getAttribute('aria-label') || d.querySelector('h2,h3')?.textContent?.trim() || ''}"`, d])
    for (const [n, region] of [...boxes.map(([n]) => [n, document.querySelector(sel[n])]), ...dialogs])
      for (const el of [region, ...region.querySelectorAll('*')]) {
        const oy = getComputedStyle(el).overflowY
        const hidden = el.scrollHeight - el.clientHeight
        if ((oy !== 'auto' && oy !== 'scroll') || hidden <= 1 || el.tagName === 'TEXTAREA') continue
        const what = `${el.tagName.toLowerCase()}.${[...el.classList].filter((c) => !c.startsWith('svelte-')).join('.')}`
        if (hidden < 16) out.push(`${n}: ${what} scrolls for ${hidden}px`)
        if (el.scrollTop + el.clientHeight < el.scrollHeight - 1 && !fades(el)) out.push(`${n}: ${what} hides ${el.scrollHeight - el.scrollTop - el.clientHeight}px below its edge without a fade`)
      }
    // A panel's heading keeps each of its parts whole: none squeezed into
    // the next (its icon gone, its name run into the label beside it).
    for (const h of document.querySelectorAll('.panel > header'))
      for (const el of h.children)
        if (el.getClientRects().length && (el.scrollWidth > el.clientWidth + 1 || [...el.querySelectorAll('svg')].some((s) => s.getBoundingClientRect().width < 1)))
          out.push(`a heading squeezes "${el.textContent.trim()}"`)
    // The control bar says the run's state whole: the one line a person
    // reads to know what the agent is doing.
    const status = document.querySelector('[data-testid="controls"] .txt')
    if (status && (status.scrollWidth > status.clientWidth + 1 || status.scrollHeight > status.clientHeight + 1))
      out.push(`the control bar cuts "${status.textContent}"`)
    // The welcome card shows its frame whole: in a short window what does
    // not fit scrolls inside it, and no line is cut at the card's edge
    // with nothing to say there is more.
    const welcome = document.querySelector('[data-testid="welcome"]')
    if (welcome && welcome.getClientRects().length) {
      const card = welcome.getBoundingClientRect()
      for (let a = welcome.parentElement; a && a !== document.body; a = a.parentElement) {
        const clip = a.getBoundingClientRect()
        if (getComputedStyle(a).overflowY !== 'visible' && card.bottom > clip.bottom + 0.5)
          out.push(`the welcome card is cut ${Math.round(card.bottom - clip.bottom)}px short by ${a.tagName.toLowerCase()}.${[...a.classList].join('.')}`)
      }
      const cols = welcome.querySelector('[data-testid="welcome-cols"]')
      if (cols && cols.scrollTop + cols.clientHeight < cols.scrollHeight - 1 && !fades(cols))
        out.push(`the welcome card hides ${cols.scrollHeight - cols.clientHeight}px below its edge without a fade`)
    }
    // No picture shows as a broken one (a step's frame the record has not
    // written yet is asked for again, out of sight).
    for (const img of document.querySelectorAll('img'))
      if (img.complete && img.naturalWidth === 0 && img.getClientRects().length && getComputedStyle(img).visibility !== 'hidden')
        out.push(`a broken picture shows: ${img.getAttribute('src')}`)
    return out
  })
  problems.push(...found.map((f) => `${name}: ${f}`))
}

async function state(words) {
  await app.page.getByTestId('run-state').getByText(words).waitFor({ timeout: 30_000 })
}

test('a new person walks through the window', async () => {
  const { page } = app
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.getByTestId('welcome-models').waitFor({ timeout: 15_000 })
  await look('01-first-start-1280x800')
  await page.setViewportSize({ width: 960, height: 640 })
  await look('02-first-start-960x640')

  // Settings: a model, as a person adds one.
  await page.getByTestId('goal-settings').click()
  await page.getByTestId('add-model').selectOption('custom')
  await look('03-settings-new-model')
  await page.getByTestId('pf-name').fill('Scripted model')
  await page.getByTestId('pf-url').fill(model.url)
  await page.getByTestId('pf-model').fill('scripted-model')
  await page.getByTestId('settings-save').click()
  await page.getByTestId('profile-Scripted model').waitFor()
  await look('04-settings-saved')
  // The list of models keeps to its column: its "In use" mark and the
  // Add a model menu end before the model's form begins.
  const spill = await page.evaluate(() => {
    const form = document.querySelector('[data-testid="settings-dialog"] .edit').getBoundingClientRect()
    return [...document.querySelectorAll('[data-testid="settings-dialog"] .profiles li > *')]
      .filter((e) => e.getBoundingClientRect().right > form.left - 4)
      .map((e) => `${e.textContent.trim().slice(0, 20)} ends at ${Math.round(e.getBoundingClientRect().right)}, the form begins at ${Math.round(form.left)}`)
  })
  assert.deepEqual(spill, [], 'the models list runs into the form')
  await page.keyboard.press('Escape')

  // The virtual phone, and a run paused while the model thinks.
  await page.getByTestId('try-virtual').click()
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
  model.push(toolCall('launch', { app: 'Counter' }, 'The counter app is not open.'), toolCall('tap', { x: 703, y: 500 }, 'Tap +1 once.'), hold)
  await page.getByTestId('goal').fill('Add one to the counter, then wait')
  await page.getByTestId('start').click()
  await page.getByTestId('step').nth(1).waitFor({ timeout: 30_000 })
  await page.getByTestId('thinking').waitFor({ timeout: 30_000 })
  await look('05-running')
  // The window made taller and shorter again mid-run: the Steps list keeps
  // its newest row in sight (it stayed where it was, and the newest row
  // went below the edge).
  const atFoot = () => {
    const l = document.querySelector('[data-testid="timeline"] ol.steps')
    return l.scrollHeight > l.clientHeight + 20 && l.scrollTop + l.clientHeight >= l.scrollHeight - 2
  }
  await page.waitForFunction(atFoot, null, { timeout: 5_000 })
  await page.setViewportSize({ width: 1280, height: 900 })
  await page.waitForFunction(() => document.querySelector('[data-testid="timeline"] ol.steps').clientHeight > 300)
  await page.setViewportSize({ width: 960, height: 640 })
  await page.waitForFunction(atFoot, null, { timeout: 5_000 }).catch(() => assert.fail('the Steps list left its newest row below the edge when the window got shorter'))
  await page.getByTestId('ctl-pause').click()
  await state('Paused')
  await page.getByTestId('pause-panel').waitFor()
  await look('06-paused')
  // What was done reads as what was pressed, by the words on it.
  const done = await page.locator('[data-testid="pause-panel"] li.done').allInnerTexts()
  assert.ok(done.some((t) => t.includes('tap “+1”')) && !done.some((t) => /\(\d+, \d+\)/.test(t)),
    `the pause panel's Done list names what was pressed: ${done.join(' | ')}`)

  // Take over from the pause panel, then hand back with a note.
  await page.getByTestId('pause-doit').click()
  await state('You are driving')
  await page.getByTestId('nav-home').click()
  await page.getByTestId('step').filter({ hasText: 'You' }).first().waitFor({ timeout: 15_000 })
  await look('07-driving')
  model.clear()
  model.push(toolCall('ask_user', { question: 'Which colour do you want?' }, 'Only you can choose.'), hold)
  await page.getByTestId('ctl-hand_back').click()
  await page.getByTestId('handback-note').fill('I went home')
  await look('08-hand-back')
  await page.getByTestId('handback-send').click()

  // The question, answered with Ctrl+Enter.
  await page.getByTestId('request-question').waitFor({ timeout: 30_000 })
  await page.getByTestId('answer').fill('Blue')
  await look('09-question')
  model.clear()
  model.push(toolCall('launch', { app: 'Shop' }, 'Open the shop.'), toolCall('tap', { x: 500, y: 908, sensitive: 'pays ¥99' }, 'Press Pay.'), hold)
  await page.getByTestId('answer').press('Control+Enter')

  // A Pay confirmation.
  await page.getByTestId('request-confirm').waitFor({ timeout: 30_000 })
  await look('10-confirm-pay')
  await page.getByTestId('deny').click()
  await page.getByTestId('thinking').waitFor({ timeout: 30_000 })

  // Stop.
  await page.getByTestId('ctl-stop').click()
  await state('Stopped')
  await look('11-stopped')
  model.clear()

  // History, the step view, the report.
  await page.getByTestId('history').click()
  await page.getByTestId('past-run').first().waitFor()
  await look('12-history')
  await page.getByTestId('history-dialog').locator('[data-testid^="view-"]').first().click()
  await page.getByTestId('history-back').waitFor()
  await look('13-history-steps')
  await page.getByTestId('history-dialog').getByRole('button', { name: /Export/ }).last().click()
  await page.getByTestId('report-open').waitFor()
  await look('14-history-report-saved')
  const path = (await page.getByTestId('history-message').innerText()).replace(/^.*?(\/\S+report\.html).*$/s, '$1')
  await page.keyboard.press('Escape')
  const report = await app.browser.newPage({ viewport: { width: 960, height: 640 } })
  await report.goto('file://' + path)
  mkdirSync(artifactsDir, { recursive: true })
  await report.screenshot({ path: join(artifactsDir, 'walk-15-report.png'), fullPage: true })
  await report.close()

  // Chinese, then dark, on a paused run.
  await page.getByTestId('language').selectOption('zh-CN')
  await page.getByTestId('theme').selectOption('dark')
  model.push(toolCall('launch', { app: 'Counter' }, '打开计数器。'), hold)
  await page.getByTestId('goal').fill('把计数器加一')
  await page.getByTestId('start').click()
  await page.getByTestId('thinking').waitFor({ timeout: 30_000 })
  await page.getByTestId('ctl-pause').click()
  await page.getByTestId('pause-panel').waitFor({ timeout: 15_000 })
  await look('16-zh-dark-paused')
  await page.getByTestId('pause-cancel').click()
  await page.getByTestId('result-card').waitFor({ timeout: 15_000 })
  await look('17-zh-dark-stopped')
  await page.setViewportSize({ width: 1280, height: 800 })
  await look('18-zh-dark-1280x800')
  model.clear()

  // Side by side (the phone and this computer), at both sizes.
  await page.getByTestId('view-tiles').click()
  await page.getByTestId('tiles').waitFor()
  await page.setViewportSize({ width: 960, height: 640 })
  await look('19-tiles-960x640')
  await page.setViewportSize({ width: 1280, height: 820 })
  await look('20-tiles-1280x820')
  const tiles = await page.evaluate(() => {
    const foot = document.querySelector('footer').getBoundingClientRect()
    return [...document.querySelectorAll('[data-testid="tile"]')].map((t) => t.getBoundingClientRect().bottom <= foot.top + 0.5)
  })
  assert.ok(tiles.length >= 2 && tiles.every(Boolean), `tiles over the goal bar: ${JSON.stringify(tiles)}`)
  await page.getByTestId('view-tiles').click()

  assert.deepEqual(problems, [], 'the walk found a region drawn over another, cut or wider than its place')
  assert.deepEqual(app.pageErrors.map(String), [], 'the page threw')
})
