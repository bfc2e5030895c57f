// A run's video (issue 52) through the real UI and the real Go backend: a
// run on the virtual phone leaves its video; History plays it with a mark
// at each step, a click on a step seeks the video there, the current step
// follows the playhead, and a clip from one step to another is exported;
// the HTML report, one file, plays the same video and seeks on a click.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { addModel, startApp, artifactsDir } from './harness.mjs'
import { startModelServer, toolCall } from './modelserver.mjs'

let app
let model

before(async () => {
  model = await startModelServer()
  app = await startApp()
  const { page } = app
  await addModel(page, model.url)
  await page.getByTestId('try-virtual').click()
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
})

after(async () => {
  await app?.stop()
  await model?.stop()
})

/** seeks clicks target and waits for the video to stand at the time it names. */
async function seeks(page, video, target, what) {
  const t = Number(await target.getAttribute('data-t'))
  assert.ok(Number.isFinite(t) && t >= 0, `${what} names its time in the video: ${t}`)
  await target.click()
  await page.waitForFunction(
    ({ sel, t }) => {
      const v = document.querySelector(sel)
      return v && Math.abs(v.currentTime - t) < 0.05 && !v.seeking && v.readyState >= 2 // the picture there is shown
    },
    { sel: video, t },
    { timeout: 5000 },
  )
  return t
}

test('History and the report play the run\'s video, a step click seeks it', { timeout: 120_000 }, async () => {
  const { page } = app
  model.push(
    toolCall('launch', { app: 'Counter' }, 'Open the counter.'),
    toolCall('tap', { x: 703, y: 500 }, 'Tap +1.'),
    toolCall('tap', { x: 703, y: 500 }, 'Tap +1 again.'),
    toolCall('tap', { x: 703, y: 500 }, 'Tap +1 a third time.'),
    toolCall('finish', { summary: 'The counter shows 3.', success: true }),
  )
  await page.getByTestId('goal').fill('Count to three')
  await page.getByTestId('start').click()
  await page.getByTestId('result-card').waitFor({ timeout: 60_000 })

  await page.getByTestId('history').click()
  const dialog = page.getByTestId('history-dialog')
  await dialog.getByTestId('past-run').first().waitFor()
  await dialog.locator('[data-testid^="view-"]').first().click()
  await dialog.getByTestId('history-steps').waitFor()
  const video = '[data-testid="history-video"]'
  await page.waitForFunction((sel) => document.querySelector(sel)?.readyState >= 1 && document.querySelector(sel).duration > 0, video, { timeout: 10_000 })
  const steps = dialog.getByTestId('history-step')
  assert.ok((await steps.count()) >= 4, 'the run has its steps')
  assert.ok((await dialog.getByTestId('video-mark').count()) >= 4, 'a mark a step on the video')

  // A click on a step seeks the video to it; the step is then the current one.
  const t3 = await seeks(page, video, steps.nth(2), 'step 3')
  assert.equal(await steps.nth(2).getAttribute('data-current'), 'true', 'the clicked step is the current one')
  const t1 = await seeks(page, video, steps.nth(0), 'step 1')
  assert.ok(t1 < t3, `step 1 (${t1} s) comes before step 3 (${t3} s)`)
  // The current step follows the playhead: set it past step 3, step 3 or a later one is current.
  await page.evaluate(({ sel, t }) => (document.querySelector(sel).currentTime = t + 0.01), { sel: video, t: t3 })
  await page.waitForFunction(() => {
    const cur = [...document.querySelectorAll('[data-testid="history-step"]')].findIndex((s) => s.dataset.current === 'true')
    return cur >= 2
  }, null, { timeout: 5000 })
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, 'e2e-video-history.png') })

  // A clip from step 2 to step 3.
  await dialog.getByTestId('clip-from').selectOption('2')
  await dialog.getByTestId('clip-to').selectOption('3')
  await dialog.getByTestId('clip-export').click()
  await dialog.getByTestId('history-message').filter({ hasText: /clip-steps-2-3\.mp4/ }).waitFor({ timeout: 10_000 })

  // The report: one file that plays the video and seeks on a step click.
  await dialog.getByTestId('history-back').click()
  await dialog.locator('[data-testid^="export-"]').first().click()
  const msg = await dialog.getByTestId('history-message').filter({ hasText: /report\.html/ }).innerText()
  const path = msg.replace(/^.*?(\/\S+report\.html).*$/s, '$1')
  const report = await app.browser.newPage()
  await report.goto('file://' + path)
  await report.waitForFunction(() => document.querySelector('video#run-video')?.readyState >= 1, null, { timeout: 10_000 })
  assert.ok((await report.locator('.marks a').count()) >= 4, 'the report marks each step on the video')
  const sections = report.locator('section.step')
  const r3 = await seeks(report, 'video#run-video', sections.nth(2), 'the report\'s step 3')
  assert.ok(Math.abs(r3 - t3) < 0.01, `the report puts step 3 where History does (${r3} s, ${t3} s)`)
  assert.match((await sections.nth(2).getAttribute('class')) ?? '', /current/, 'the clicked step is the current one')
  await report.screenshot({ path: join(artifactsDir, 'e2e-video-report.png') })
  await report.close()
})
