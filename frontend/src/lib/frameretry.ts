// A run's frame is written just after the step's event, by the record's
// writer, which a busy machine can hold back for seconds: a picture of it
// that fails to load asks again, less and less often (0.3 s doubling to
// 5 s), and gives up after about 30 s (StepThumb, Closeup).
export const frameRetryDelays = [300, 600, 1200, 2400, 4800, 5000, 5000, 5000, 5000]

/**
 * retryFrame loads src again into img after the next delay (n: the tries
 * so far); it returns the timer, or null once the tries are spent.
 */
export function retryFrame(img: HTMLImageElement, src: string, n: number): ReturnType<typeof setTimeout> | null {
  if (n >= frameRetryDelays.length) return null
  return setTimeout(() => (img.src = `${src}&retry=${n + 1}`), frameRetryDelays[n])
}
