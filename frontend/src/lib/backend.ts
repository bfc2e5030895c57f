// The Go methods bound by Wails (app.App), typed. Wails injects window.go in
// the desktop window and in the dev-server harness; calling through this one
// module keeps the rest of the UI free of window globals and easy to test.

export interface Info {
  version: string
  commit: string
  os: string
  locale: string
  dataDir: string
  settingsPath: string
}

export interface Settings {
  language: 'system' | 'en' | 'zh-CN'
  theme: 'system' | 'light' | 'dark'
  recent_goals: string[]
  welcome_done?: boolean
}

export interface WelcomeStatus {
  adb: {
    installed: boolean
    path: string
    serverOk: boolean
    devices: { serial: string; state: string }[]
    error: string
  }
  modelServers: { name: string; baseUrl: string; models: string[] }[]
  vphone: boolean
}

export interface LoadedSettings {
  settings: Settings
  warning: string
}

type Bound = {
  Info(): Promise<Info>
  GetSettings(): Promise<LoadedSettings>
  SaveSettings(s: Settings): Promise<Settings>
  DismissSettingsWarning(): Promise<void>
  WelcomeCheck(): Promise<WelcomeStatus>
  StartVirtualPhone(): Promise<void>
  DismissWelcome(): Promise<Settings>
}

declare global {
  interface Window {
    go?: { app?: { App?: Bound } }
  }
}

export class BackendMissing extends Error {
  constructor() {
    super('the Go backend is not connected (window.go.app.App is missing)')
  }
}

function app(): Bound {
  const a = window.go?.app?.App
  if (!a) throw new BackendMissing()
  return a
}

export const backend = {
  info: () => app().Info(),
  getSettings: () => app().GetSettings(),
  saveSettings: (s: Settings) => app().SaveSettings(s),
  dismissSettingsWarning: () => app().DismissSettingsWarning(),
  welcomeCheck: () => app().WelcomeCheck(),
  startVirtualPhone: () => app().StartVirtualPhone(),
  dismissWelcome: () => app().DismissWelcome(),
}
