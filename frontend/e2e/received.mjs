// What the scripted model received (modelserver.mjs records each request's
// body): its words, its newest screenshot and what is drawn on it, and the
// run's own record to compare them with. The browser suite checks what the
// engine and the dialect produced with these, never the words a test typed.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/** promptWords is the text the model received in request r: every message's text, in order. */
export function promptWords(r) {
  return (r?.body?.messages ?? [])
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).filter((p) => p.type === 'text').map((p) => p.text).join('\n')))
    .join('\n')
}

/** recordOf is the record of the run started with goal under dataDir (its entries, in order). */
export function recordOf(dataDir, goal) {
  const runs = join(dataDir, 'runs')
  for (const d of readdirSync(runs)) {
    const entries = readFileSync(join(runs, d, 'record.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    if (entries[0]?.goal === goal) return entries
  }
  return []
}

/** lastImage is the newest image (a data URL) the model received in request r. */
export function lastImage(r) {
  const urls = (r?.body?.messages ?? []).flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url').map((p) => p.image_url.url) : [],
  )
  return urls.at(-1)
}

/**
 * outlineIn decodes the image at url (in a blank page of browser) and
 * samples it 2 px outside each side of rect (fractions of the image), where
 * the outline of a marked region lies: it returns how many samples are red,
 * of how many, and the image's size.
 */
export async function outlineIn(browser, url, rect) {
  const blank = await browser.newPage()
  try {
    return await blank.evaluate(
      async ({ url, rect }) => {
        const img = new Image()
        img.src = url
        await img.decode()
        const c = document.createElement('canvas')
        c.width = img.naturalWidth
        c.height = img.naturalHeight
        const g = c.getContext('2d')
        g.drawImage(img, 0, 0)
        const red = (x, y) => {
          const [r, gr, b] = g.getImageData(x, y, 1, 1).data
          return r > 170 && gr < 100 && b < 100
        }
        const [x1, x2] = [rect.x1, rect.x2].map((v) => Math.round(v * c.width))
        const [y1, y2] = [rect.y1, rect.y2].map((v) => Math.round(v * c.height))
        let hits = 0
        let all = 0
        for (let i = 1; i < 12; i++) {
          const x = Math.round(x1 + ((x2 - x1) * i) / 12)
          const y = Math.round(y1 + ((y2 - y1) * i) / 12)
          // At an edge of the screen the outline lies inside the region.
          const inX = (v) => Math.min(Math.max(v, 2), c.width - 3)
          const inY = (v) => Math.min(Math.max(v, 2), c.height - 3)
          for (const [px, py] of [[x, inY(y1 - 2)], [x, inY(y2 + 2)], [inX(x1 - 2), y], [inX(x2 + 2), y]]) {
            all++
            if (red(px, py)) hits++
          }
        }
        return { hits, all, size: `${c.width}x${c.height}` }
      },
      { url, rect },
    )
  } finally {
    await blank.close()
  }
}
