// Phoenix channels' v2 JSON serializer, the one Blockscout's front end speaks
// (its `phoenix` client with vsn=2.0.0): every frame is a JSON array
// [join_ref, ref, topic, event, payload]. Refs are strings or null.

export type PhoenixMessage = {
  joinRef: string | null
  ref: string | null
  topic: string
  event: string
  payload: unknown
}

/** Longest topic accepted: an address topic is 50 characters; this leaves room and refuses junk. */
export const MAX_TOPIC_LENGTH = 200

const isRef = (value: unknown): value is string | null => value === null || typeof value === 'string'

/** A v2 frame, or undefined for anything else (not JSON, not a 5-element array, wrong member types). */
export function parseFrame (text: string): PhoenixMessage | undefined {
  let frame: unknown
  try {
    frame = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(frame) || frame.length !== 5) return undefined
  const [joinRef, ref, topic, event, payload] = frame as unknown[]
  if (!isRef(joinRef) || !isRef(ref) || typeof topic !== 'string' || typeof event !== 'string') return undefined
  if (topic.length === 0 || topic.length > MAX_TOPIC_LENGTH) return undefined
  return { joinRef, ref, topic, event, payload }
}

export function encodeFrame ({ joinRef, ref, topic, event, payload }: PhoenixMessage): string {
  return JSON.stringify([joinRef, ref, topic, event, payload])
}
