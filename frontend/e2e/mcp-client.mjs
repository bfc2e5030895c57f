// The official TypeScript SDK's MCP client (@modelcontextprotocol/sdk)
// driving `tandem mcp` over stdio, one scenario per run, for
// cli/mcp_ts_test.go, which owns the phone and the model and checks what
// happened to them. It prints one JSON object per line on stdout.
//
//   node e2e/mcp-client.mjs MODE
//   env: TANDEM_CMD, TANDEM_ARGS (JSON array), DEVICE
//   modes: tools, run, cancel, pay-accept, pay-decline, pay-none
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import Ajv from 'ajv'
import { createInterface } from 'node:readline'

const mode = process.argv[2]
const device = process.env.DEVICE
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const asked = []

const elicit = mode === 'pay-accept' || mode === 'pay-decline'
const client = new Client({ name: 'ts-sdk-agent', version: '1.0.0' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} })
if (elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message)
    return mode === 'pay-accept' ? { action: 'accept', content: { choice: 'allow' } } : { action: 'decline' }
  })
}
const transport = new StdioClientTransport({
  command: process.env.TANDEM_CMD,
  args: JSON.parse(process.env.TANDEM_ARGS ?? '[]'),
  env: { ...process.env },
  stderr: 'inherit',
})
await client.connect(transport)

const runTask = (goal, opts = {}) =>
  client.callTool({ name: 'run_task', arguments: { device, goal } }, CallToolResultSchema, { timeout: 120_000, maxTotalTimeout: 120_000, ...opts })
const getRun = async (id) => (await client.callTool({ name: 'get_run', arguments: { id } })).structuredContent
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function runningID() {
  for (;;) {
    const { structuredContent: d } = await client.callTool({ name: 'list_devices', arguments: {} })
    const mine = d.devices.find((x) => x.id === device)
    if (mine?.run) return mine.run
    await sleep(20)
  }
}

switch (mode) {
  case 'tools': {
    const { tools } = await client.listTools()
    const ajv = new Ajv({ strict: false })
    const bad = []
    for (const t of tools) {
      for (const [what, s] of [['input', t.inputSchema], ['output', t.outputSchema]]) {
        if (!s) continue
        try {
          ajv.compile(s)
        } catch (e) {
          bad.push(`${t.name} ${what}: ${e.message}`)
        }
      }
      if (!t.annotations || (t.annotations.readOnlyHint !== true && t.annotations.destructiveHint === undefined)) bad.push(`${t.name}: no annotations`)
      if (!t.description) bad.push(`${t.name}: no description`)
    }
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)
    say({ tools: tools.map((t) => t.name), outputs: tools.filter((t) => t.outputSchema).map((t) => t.name), bad, templates, protocol: transport._protocolVersion ?? null })
    break
  }
  case 'run': {
    const progress = []
    const res = await runTask('Make the counter show 2', { onprogress: (p) => progress.push(p) })
    say({ result: res.structuredContent, progress })
    break
  }
  case 'cancel': {
    const ac = new AbortController()
    const call = runTask('Make the counter show 1', { signal: ac.signal }).then(
      () => 'returned',
      (e) => 'rejected: ' + e.message,
    )
    const id = await runningID()
    for (let r = await getRun(id); r.state !== 'Planning'; r = await getRun(id)) await sleep(20)
    ac.abort('the person changed their mind')
    say({ aborted: id, call: await call })
    // The test releases the model now and watches the phone; it closes
    // stdin when it is done.
    await new Promise((done) => createInterface({ input: process.stdin }).on('close', done))
    say({ after: await getRun(id) })
    break
  }
  case 'pay-accept':
  case 'pay-decline': {
    const res = await runTask('Buy the earbuds')
    say({ result: res.structuredContent, asked })
    break
  }
  case 'pay-none': {
    const call = runTask('Buy the earbuds')
    const id = await runningID()
    let r = await getRun(id)
    while (!r.waiting) {
      await sleep(20)
      r = await getRun(id)
    }
    say({ waiting: r })
    await client.callTool({ name: 'stop_run', arguments: { id } })
    say({ result: (await call).structuredContent })
    break
  }
  default:
    throw new Error('unknown mode ' + mode)
}
await client.close()
