// Generated from engine.Answers (engine/answers.go) by TestAnswersTypeScriptGolden; do not edit.
// What each kind of request takes; the request dialog offers exactly these.

export type Answer = 'stop' | 'deny' | 'allow' | 'answer' | 'hand_back' | 'take_over' | 'hint' | 'continue'

export interface AnswerSpec {
  answer: Answer
  text: 'none' | 'optional' | 'required'
  en: string
  zh: string
  typed?: readonly string[]
  empty?: boolean
}

export const answers = {
  confirm: [{"answer":"stop","text":"none","en":"Stop the task","zh":"停止任务","typed":["stop","停止"],"empty":true},{"answer":"deny","text":"optional","en":"Deny","zh":"拒绝","typed":["n","no","nope","nah","deny","cancel","don't","dont","不","否","不要","不行","不可以","不同意","不允许","拒绝","取消","别","不用","算了"]},{"answer":"allow","text":"none","en":"Allow","zh":"允许","typed":["y","yes","yeah","yep","ok","okay","sure","allow","confirm","是","是的","好","好的","确认","确定","可以","同意","允许","行","对"]}],
  question: [{"answer":"stop","text":"none","en":"Stop the task","zh":"停止任务","empty":true},{"answer":"answer","text":"required","en":"Answer","zh":"回答"}],
  take_over: [{"answer":"stop","text":"none","en":"Stop the task","zh":"停止任务","typed":["stop","停止"]},{"answer":"hand_back","text":"optional","en":"Hand back","zh":"交还控制","empty":true}],
  loop: [{"answer":"stop","text":"none","en":"Stop the task","zh":"停止任务","empty":true},{"answer":"take_over","text":"none","en":"I’ll do it","zh":"我来操作","typed":["t","take over","接管"]},{"answer":"hint","text":"required","en":"Give a hint and continue","zh":"给个提示并继续"},{"answer":"continue","text":"none","en":"Keep going","zh":"继续","typed":["c","continue","继续"]}],
  budget: [{"answer":"stop","text":"none","en":"Stop the task","zh":"停止任务","empty":true},{"answer":"take_over","text":"none","en":"I’ll do it","zh":"我来操作","typed":["t","take over","接管"]},{"answer":"hint","text":"required","en":"Give a hint and continue","zh":"给个提示并继续"},{"answer":"continue","text":"none","en":"Keep going","zh":"继续","typed":["c","continue","继续"]}],
  model_error: [{"answer":"stop","text":"none","en":"Stop the task","zh":"停止任务","empty":true},{"answer":"take_over","text":"none","en":"I’ll do it","zh":"我来操作","typed":["t","take over","接管"]},{"answer":"hint","text":"required","en":"Give a hint and continue","zh":"给个提示并继续"},{"answer":"continue","text":"none","en":"Keep going","zh":"继续","typed":["c","continue","继续"]}],
  device_error: [{"answer":"stop","text":"none","en":"Stop the task","zh":"停止任务","empty":true},{"answer":"take_over","text":"none","en":"I’ll do it","zh":"我来操作","typed":["t","take over","接管"]},{"answer":"hint","text":"required","en":"Give a hint and continue","zh":"给个提示并继续"},{"answer":"continue","text":"none","en":"Keep going","zh":"继续","typed":["c","continue","继续"]}],
} as const satisfies Record<string, readonly AnswerSpec[]>
