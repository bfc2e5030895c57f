import { startApp } from './harness.mjs'
import { startModelServer, toolCall } from './modelserver.mjs'
const model = await startModelServer()
const app = await startApp()
const { page } = app
page.on('console', (m) => console.log('CONSOLE', m.type(), m.text().slice(0, 300)))
page.on('close', () => console.log('PAGE CLOSED'))
page.on('crash', () => console.log('PAGE CRASHED'))
page.on('framenavigated', (f) => console.log('NAV', f.url()))
page.on('websocket', (ws) => {
  console.log('WS', ws.url())
  ws.on('framereceived', (f) => { if (typeof f.payload === 'string') console.log('WS<', f.payload.slice(0, 200)) })
  ws.on('framesent', (f) => { if (typeof f.payload === 'string') console.log('WS>', f.payload.slice(0, 200)) })
  ws.on('close', () => console.log('WS CLOSED', ws.url()))
})
try {
  await page.getByTestId('settings').click()
  await page.getByTestId('add-model').selectOption('custom')
  await page.getByTestId('pf-name').fill('Scripted model')
  await page.getByTestId('pf-url').fill(model.url)
  await page.getByTestId('pf-model').fill('scripted-model')
  await page.getByTestId('pf-key').fill('sk-e2e-secret-key-0123456789')
  await page.getByTestId('pf-save').click()
  await page.keyboard.press('Escape')
  await page.getByTestId('try-virtual').click()
  await page.locator('[data-testid="mirror-screen"][data-frame="1080x2400"]').waitFor({ timeout: 30_000 })
  console.log('--- virtual ready')
  model.push(
    toolCall('launch', { app: 'Shop' }, 'Open the shop.'),
    toolCall('tap', { x: 500, y: 908, sensitive: 'pays ¥99' }, 'Press Pay.'),
    toolCall('tap', { x: 500, y: 908, sensitive: 'pays ¥99' }, 'The person refused; ask once more.'),
    toolCall('finish', { summary: 'Paid ¥99.', success: true }),
  )
  await page.evaluate(() => {
    window.runtime.EventsOn('run', (e) => console.log('RUNEV', JSON.stringify(e).slice(0, e.kind==='snapshot'?600:150)))
    window.runtime.EventsOn('devices', (e) => console.log('DEVEV', JSON.stringify(e).slice(0, 100)))
  })
  await page.getByTestId('goal').fill('Add one to the counter')
  await page.getByTestId('start').click()
  console.log('--- started')
  await new Promise((r) => setTimeout(r, 8000))
  console.log('requests', model.requests.length)
  console.log('devices', JSON.stringify(await page.evaluate(() => window.go.app.App.ListDevices())))
  console.log('TIMELINE', await page.getByTestId('timeline').innerText())
  await page.screenshot({ path: '/tmp/dbg/pay.png' })
  console.log('runstate', await page.getByTestId('run-state').count())
} catch (e) { console.log('ERR', e.message) }
console.log('LOGS', app.logs().slice(-3000))
await app.stop(); await model.stop()
