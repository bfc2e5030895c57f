// The app shell through the real UI and the real Go backend.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp, artifactsDir } from './harness.mjs'

let app
before(async () => {
  app = await startApp()
})
after(async () => {
  await app?.stop()
})

test('the shell shows every region with an honest empty state', async () => {
  const { page } = app
  for (const id of ['devices', 'mirror', 'timeline', 'goal', 'controls', 'start']) {
    assert.ok(await page.getByTestId(id).isVisible(), `${id} visible`)
  }
  assert.match(await page.getByTestId('devices').innerText(), /No device connected/)
  assert.match(await page.getByTestId('timeline').innerText(), /No steps yet/)
  assert.equal(await page.getByTestId('start').isDisabled(), true, 'Start needs a device')
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, 'e2e-shell-en.png') })
  assert.deepEqual(app.pageErrors, [])
})

test('About shows the version and commit from the Go backend (a bound method through the UI)', async () => {
  const { page } = app
  const bin = process.env.TANDEM_DEV_BIN
  const want = JSON.parse(execFileSync(bin, ['version', '--json']).toString())
  await page.getByTestId('about').click()
  const dialog = page.getByTestId('about-dialog')
  await dialog.waitFor()
  assert.equal(await page.getByTestId('about-version').innerText(), want.version)
  assert.equal(await page.getByTestId('about-commit').innerText(), want.commit)
  assert.notEqual(want.commit, 'unknown')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
})

test('switching to Chinese goes through Go, persists, and survives a reload', async () => {
  const { page } = app
  await page.getByTestId('language').selectOption('zh-CN')
  await page.getByText('没有已连接的设备').waitFor()
  assert.equal(await page.getByTestId('start').innerText(), '开始')
  const saved = JSON.parse(readFileSync(join(app.configDir, 'settings.json'), 'utf8'))
  assert.equal(saved.language, 'zh-CN')
  await page.reload()
  await page.getByText('没有已连接的设备').waitFor()
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, 'e2e-shell-zh.png') })
  await page.getByTestId('language').selectOption('en')
  await page.getByText('No device connected').waitFor()
})

test('dark theme applies and persists', async () => {
  const { page } = app
  await page.getByTestId('theme').selectOption('dark')
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark')
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  assert.equal(bg, 'rgb(22, 24, 29)')
  const saved = JSON.parse(readFileSync(join(app.configDir, 'settings.json'), 'utf8'))
  assert.equal(saved.theme, 'dark')
  await page.getByTestId('theme').selectOption('system')
})

test('a damaged settings file is reported, kept aside, and the app still starts', async () => {
  const cfg = mkdtempSync(join(tmpdir(), 'tandem-e2e-corrupt-'))
  writeFileSync(join(cfg, 'settings.json'), '{"language": "zh-CN", "theme": ')
  const broken = await startApp({ configDir: cfg })
  try {
    const notice = broken.page.getByTestId('notice')
    await notice.waitFor()
    assert.match(await notice.innerText(), /damaged/)
    assert.ok(readdirSync(cfg).some((f) => f.startsWith('settings.json.corrupt-')))
    assert.match(await broken.page.getByTestId('devices').innerText(), /No device connected/)
  } finally {
    await broken.stop()
    rmSync(cfg, { recursive: true, force: true })
  }
})
