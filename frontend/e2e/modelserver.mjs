// A real local HTTP server that speaks the OpenAI chat-completions API for
// the browser e2e suite: it answers from a per-test script, records every
// request (so a test can assert what the model was told), streams with SSE
// when asked, and can hold a reply until the client goes away (to test Stop).
//
//   const m = await startModelServer([toolCall('tap', {x: 500, y: 500}), ...])
//   m.url        -> 'http://127.0.0.1:PORT/v1'
//   m.requests   -> parsed request bodies, in order
//   m.closed     -> how many held requests were closed by the client
import { createServer } from 'node:http'

let callSeq = 0

/** toolCall is a scripted reply with one function call (the tools dialect). */
export function toolCall(name, args, thought = '') {
  return { content: thought, tool_calls: [{ name, arguments: JSON.stringify(args) }] }
}

/** text is a scripted plain-text reply. */
export function text(content) {
  return { content, tool_calls: [] }
}

/** hold is a reply that never comes: the request stays open until the client closes it. */
export const hold = { hold: true }

/** status is an HTTP error reply, with a Retry-After header (seconds) when given. */
export function status(code, message = 'scripted error', retryAfter) {
  return { status: code, message, retryAfter }
}

/** describe names a scripted reply in a line, for the request log. */
function describe(r) {
  if (r.hold) return 'hold'
  if (r.status) return `HTTP ${r.status}`
  const calls = (r.tool_calls ?? []).map((c) => `${c.name}${c.arguments}`).join(' ')
  return calls || `text ${JSON.stringify(r.content ?? '').slice(0, 60)}`
}

/** lastUser is the start of the newest user message's text, to tell requests apart. */
function lastUser(body) {
  const m = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user')
  const c = typeof m?.content === 'string' ? m.content : (m?.content ?? []).filter((p) => p.type === 'text').map((p) => p.text).join(' ')
  return (c ?? '').replace(/\s+/g, ' ').slice(0, 80)
}

export function startModelServer(script = []) {
  const state = { requests: [], closed: 0, script: [...script], routes: [] }
  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted-model', object: 'model' }] }))
      return
    }
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
      res.writeHead(404).end()
      return
    }
    let body = ''
    try {
      for await (const chunk of req) body += chunk
    } catch {
      return // the client gave up while sending (a call cancelled mid-upload): as a real server, forget it
    }
    let parsed
    try {
      parsed = JSON.parse(body)
    } catch {
      res.writeHead(400).end('{"error":{"message":"bad json"}}')
      return
    }
    // A request of a routed run (its goal is in the request) is answered by
    // that run's own script; several runs at once each get theirs.
    const asked = JSON.stringify(parsed.messages ?? [])
    const route = state.routes.find((r) => asked.includes(r.key))
    const next = route ? (typeof route.replies === 'function' ? route.replies() : (route.replies.shift() ?? hold)) : (state.script.shift() ?? hold)
    const entry = { body: parsed, headers: req.headers, served: describe(next), delivered: false }
    state.requests.push(entry)
    res.on('finish', () => (entry.delivered = true))
    if (next.hold) {
      req.socket.on('close', () => state.closed++)
      return // never answer
    }
    if (next.status) {
      res.writeHead(next.status, { 'content-type': 'application/json', ...(next.retryAfter ? { 'retry-after': String(next.retryAfter) } : {}) })
      res.end(JSON.stringify({ error: { message: next.message, type: 'scripted' } }))
      return
    }
    const id = `chatcmpl-${++callSeq}`
    const calls = (next.tool_calls ?? []).map((c, i) => ({
      index: i,
      id: `call_${callSeq}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }))
    const usage = { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240 }
    if (parsed.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const send = (delta, finish = null, extra = {}) =>
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: parsed.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`)
      send({ role: 'assistant' })
      if (next.content) for (const piece of next.content.match(/.{1,12}/gsu) ?? []) send({ content: piece })
      if (calls.length) send({ tool_calls: calls })
      send({}, calls.length ? 'tool_calls' : 'stop')
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: parsed.model, choices: [], usage })}\n\n`)
      res.end('data: [DONE]\n\n')
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created: 0,
        model: parsed.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: next.content ?? '', ...(calls.length ? { tool_calls: calls.map(({ index, ...c }) => c) } : {}) },
            finish_reason: calls.length ? 'tool_calls' : 'stop',
          },
        ],
        usage,
      }),
    )
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        get requests() {
          return state.requests
        },
        get closed() {
          return state.closed
        },
        push: (...replies) => state.script.push(...replies),
        /**
         * route answers the requests that hold key (a run's goal) from their
         * own replies, in order (held once they run out), or each from
         * replies() when it is a function: several runs at once, each its own script.
         */
        route: (key, replies) => state.routes.push({ key, replies: typeof replies === 'function' ? replies : [...replies] }),
        /** routed adds replies to key's route. */
        routed: (key, ...replies) => state.routes.find((r) => r.key === key)?.replies.push(...replies),
        /** clear drops the replies not served yet (what a failed test left). */
        clear: () => (state.script.splice(0), state.routes.splice(0)),
        /** log describes the requests from index from on: what each was served and whether it arrived. */
        log: (from = 0) =>
          state.requests
            .slice(from)
            .map((r, i) => `#${from + i} ${r.body?.stream ? 'stream' : 'once'} → ${r.served}${r.delivered ? '' : ' (not delivered)'} | ${lastUser(r.body)}`)
            .join('\n'),
        stop: () =>
          new Promise((r) => {
            server.closeAllConnections?.()
            server.close(() => r())
          }),
      })
    })
  })
}
