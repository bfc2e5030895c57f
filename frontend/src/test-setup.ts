// What jsdom lacks and every component test needs. jsdom lays nothing out,
// so a box's size never changes: ResizeObserver observes and never calls.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
}
