// The Evaluate view (issue 47) through the real UI and the real Go
// backend: two models, a tier, the table. The person picks the built-in
// oracle and a saved profile whose model claims success at once, and the
// simple tier; Go starts two virtual phones, runs every chore for each
// model as normal runs and reads each phone to score it. The table must
// say the oracle did every chore and the other none, each of its runs a
// false "done"; a cell opens its run in History; the evaluation is kept.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { addModel, startApp, artifactsDir } from './harness.mjs'
import { startModelServer, toolCall } from './modelserver.mjs'

let app
let model

before(async () => {
  model = await startModelServer()
  model.route('', () => toolCall('finish', { summary: 'Done.', success: true }))
  app = await startApp()
  const { page } = app
  await addModel(page, model.url, 'Claims done')
  await page.getByTestId('welcome-done').click()
})

after(async () => {
  await app?.stop()
  await model?.stop()
})

test('two models on the simple chores: the oracle does every one, a model that claims success at once none', { timeout: 600_000 }, async () => {
  const { page } = app
  await page.getByTestId('evaluate').click()
  const dialog = page.getByTestId('eval-dialog')
  await dialog.getByTestId('eval-form').waitFor()
  assert.equal(await dialog.getByTestId('eval-oracle').isChecked(), true, 'the oracle is offered, chosen by default')
  await dialog.locator('[data-testid="eval-profile"][data-name="Claims done"]').check()
  await dialog.getByTestId('eval-tier').selectOption('simple')
  await dialog.getByTestId('eval-phones').selectOption('2')
  await dialog.getByTestId('eval-start').click()
  await dialog.getByTestId('eval-progress').waitFor({ timeout: 60_000 })
  await page.screenshot({ path: join(artifactsDir, 'e2e-eval-running.png') })
  await dialog.getByTestId('eval-state').filter({ hasText: 'Finished' }).waitFor({ timeout: 480_000 })
  const heads = await dialog.locator('[data-testid="eval-compare"] thead th').allTextContents()
  assert.deepEqual(heads.slice(1), ['Oracle (built-in)', 'Claims done'])
  const row = async (label) => {
    const cells = dialog.locator('[data-testid="eval-compare"] tbody tr').filter({ has: page.locator('th', { hasText: label }) }).first().locator('td')
    return cells.allTextContents()
  }
  const success = await row('Success')
  assert.match(success[0], /^100% · (\d+) of \1$/, `the oracle's success: ${success[0]}`)
  assert.match(success[1], /^0% · 0 of \d+$/, `the claiming model's success: ${success[1]}`)
  const n = Number(success[0].match(/of (\d+)/)[1])
  assert.ok(n >= 10, `${n} simple chores`)
  const falseDone = await row('False “done”')
  assert.deepEqual(falseDone, ['0', String(n)], 'every claim of the second model is a false done')
  assert.equal(await dialog.getByTestId('eval-task').count(), n)
  await page.screenshot({ path: join(artifactsDir, 'e2e-eval-done.png') })

  // Its HTML report is written and opened with the system's program, and
  // holds the table: both models and every chore.
  await dialog.getByTestId('eval-report').click()
  for (const deadline = Date.now() + 10_000; app.opened().length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50))
  const [report] = app.opened()
  assert.match(report ?? '', /evaluations\/[\d-]+\.html$/, 'Open report opened an HTML file')
  const html = readFileSync(report, 'utf8')
  assert.ok(html.includes('Oracle (built-in)') && html.includes('Claims done'), 'the report names both models')
  assert.equal((html.match(/<tr><td>[a-z_]+_\d<\/td>/g) ?? []).length, n, 'the report has a row a chore')

  // A chore's cell opens its run in History, step by step.
  await dialog.getByTestId('eval-task').first().getByTestId('eval-run').first().click()
  const history = page.getByTestId('history-dialog')
  await history.getByTestId('history-steps').waitFor()
  assert.ok((await history.getByTestId('history-step').count()) >= 1, 'the oracle\'s run has its steps')
  await page.keyboard.press('Escape')
  await history.waitFor({ state: 'detached' })

  // The evaluation is kept: the list shows it after the dialog is opened again.
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
  await page.getByTestId('evaluate').click()
  const kept = page.getByTestId('eval-dialog').getByTestId('eval-saved')
  await kept.first().waitFor()
  assert.match(await kept.first().textContent(), /Oracle \(built-in\) 100%.*Claims done 0%/s)
})
