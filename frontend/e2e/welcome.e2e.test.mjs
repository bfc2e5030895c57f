// The first-start welcome through the real UI and the real Go backend: a real
// local HTTP server stands in for a local model server (TANDEM_PROBE_PORTS
// points the probe at it), adb runs for real on a private server port.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startApp, artifactsDir, freePort } from './harness.mjs'

let app
let models
let adbPort
before(async () => {
  models = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'test-vlm' }] }))
      return
    }
    res.statusCode = 404
    res.end()
  })
  await new Promise((ok) => models.listen(0, '127.0.0.1', ok))
  const closed = await freePort()
  adbPort = await freePort()
  app = await startApp({
    env: {
      TANDEM_PROBE_PORTS: `Closed=${closed},vLLM=${models.address().port}`,
      ANDROID_ADB_SERVER_PORT: String(adbPort),
    },
  })
})
after(async () => {
  await app?.stop()
  models?.close()
  try {
    execFileSync('adb', ['-P', String(adbPort), 'kill-server'], { stdio: 'ignore' })
  } catch {
    // no adb server was started
  }
})

test('the welcome finds the local model server, checks adb, and starts the virtual phone', async () => {
  const { page } = app
  const welcome = page.getByTestId('welcome')
  await welcome.waitFor()
  const port = models.address().port
  await page.getByText(`vLLM at http://127.0.0.1:${port}/v1 (test-vlm)`).waitFor({ timeout: 15_000 })
  const adbText = await page.getByTestId('welcome-adb').innerText()
  // The harness gives the app a private adb server with no phones.
  assert.match(adbText, /no phone is connected/)
  assert.match(adbText, /ADB Keyboard/)
  await page.getByTestId('welcome-vphone-start').click()
  // The virtual phone joins the device list, is selected, and its screen is mirrored.
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
  assert.match(await page.getByTestId('devices').innerText(), /Tandem Virtual Phone/)
  assert.equal(await page.getByTestId('welcome-vphone-missing').count(), 0)
  // The found model is one click away: it becomes the active model.
  await page.getByTestId('welcome-use-model').click()
  await page.getByTestId('welcome-model-used').waitFor()
  await page.getByTestId('model-badge').getByText('vLLM · test-vlm').waitFor()
  const saved = JSON.parse(readFileSync(join(app.configDir, 'settings.json'), 'utf8'))
  assert.ok(saved.active_profile, 'an active profile was stored')
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, 'e2e-welcome-en.png') })
  assert.deepEqual(app.pageErrors, [])
})

test('the welcome speaks Chinese too', async () => {
  const { page } = app
  await page.getByTestId('language').selectOption('zh-CN')
  await page.getByText('欢迎使用 Tandem').waitFor()
  await page.getByText('本地模型服务正在运行：vLLM').waitFor()
  await page.getByTestId('language').selectOption('en')
  await page.getByText('Welcome to Tandem').waitFor()
})

test('dismissing the welcome is stored and it stays gone after a reload', async () => {
  const { page } = app
  await page.getByTestId('welcome-done').click()
  await page.getByTestId('welcome').waitFor({ state: 'detached' })
  const saved = JSON.parse(readFileSync(join(app.configDir, 'settings.json'), 'utf8'))
  assert.equal(saved.welcome_done, true)
  await page.reload()
  await page.getByTestId('devices').waitFor()
  assert.equal(await page.getByTestId('welcome').count(), 0)
})
