// The desktop's stop hotkey as a person reads it: Go keeps it as a chord
// ("ctrl+shift+esc", desktop.CheckStopHotkey); the window writes it as the
// keys are labelled.
const names: Record<string, string> = { ctrl: 'Ctrl', shift: 'Shift', alt: 'Alt', cmd: 'Super', super: 'Super', esc: 'Esc', escape: 'Esc', enter: 'Enter', tab: 'Tab', space: 'Space', backspace: 'Backspace', delete: 'Delete', pageup: 'PageUp', pagedown: 'PageDown' }

/** chordText is chord ("ctrl+alt+k") as its keys are labelled ("Ctrl+Alt+K"). */
export function chordText(chord: string): string {
  return chord
    .split('+')
    .filter(Boolean)
    .map((k) => names[k.toLowerCase()] ?? (k.length === 1 ? k.toUpperCase() : k[0].toUpperCase() + k.slice(1)))
    .join('+')
}
