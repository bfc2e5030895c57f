// The scripted model server itself speaks the protocol the app's client uses.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startModelServer, toolCall, hold, status } from './modelserver.mjs'

test('answers scripted tool calls, streamed and not, and records requests', async () => {
  const m = await startModelServer([toolCall('tap', { x: 1, y: 2 }, 'I see it'), toolCall('finish', { summary: 'done' }), status(429)])
  try {
    const r1 = await fetch(`${m.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'x', messages: [] }) })
    const j = await r1.json()
    assert.equal(j.choices[0].message.tool_calls[0].function.name, 'tap')
    assert.equal(j.choices[0].message.content, 'I see it')
    const r2 = await fetch(`${m.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'x', stream: true, messages: [] }) })
    const sse = await r2.text()
    assert.match(sse, /"name":"finish"/)
    assert.match(sse, /data: \[DONE\]/)
    const r3 = await fetch(`${m.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'x', messages: [] }) })
    assert.equal(r3.status, 429)
    assert.equal(m.requests.length, 3)
  } finally {
    await m.stop()
  }
})

test('a held reply stays open until the client closes it', async () => {
  const m = await startModelServer([hold])
  try {
    const ac = new AbortController()
    const p = fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{"model":"x","messages":[]}', signal: ac.signal }).catch((e) => e)
    while (m.requests.length === 0) await new Promise((r) => setTimeout(r, 10))
    ac.abort()
    assert.equal((await p).name, 'AbortError')
    const deadline = Date.now() + 2000
    while (m.closed === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    assert.equal(m.closed, 1)
  } finally {
    await m.stop()
  }
})
