// The page's one second hand. Everything that changes with time alone (the
// run's elapsed time, a waiting call's seconds, a kept picture's age, the
// live marks' blink and turn) reads this clock, so they all change together
// on its tick, on whole seconds: the window draws once a second however many
// of them show, not once for each at its own moment. Each drawing is a
// repaint in software in Tandem's window (BenchmarkWindowWatching).

let now = $state(Date.now())
let users = 0
let timer: ReturnType<typeof setTimeout> | undefined

function next() {
  timer = setTimeout(() => {
    now = Date.now()
    next()
  }, 1000 - (Date.now() % 1000))
}

/**
 * seconds gives the clock, read where a component initialises: it ticks
 * while active() holds for any of its readers, and its time is fresh when
 * a reader becomes active.
 */
export function seconds(active: () => boolean = () => true): { readonly now: number; readonly tick: number } {
  $effect(() => {
    if (!active()) return
    if (users++ === 0) {
      now = Date.now()
      next()
    }
    return () => {
      if (--users === 0) {
        clearTimeout(timer)
        timer = undefined
      }
    }
  })
  return {
    get now() {
      return now
    },
    /** whole seconds: what a blink or a turn counts */
    get tick() {
      return Math.floor(now / 1000)
    },
  }
}
