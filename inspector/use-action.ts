import { useState } from 'preact/hooks'

/**
 * A request a button starts: `busy` while it runs (the buttons wait), and its failure, shown
 * until the next one starts.
 *
 * @example
 * const { busy, error, run } = useAction()
 * <button disabled={busy} onClick={() => run(() => api.post(path, body))}>Go</button>
 */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  async function run(work: () => Promise<unknown>): Promise<void> {
    setBusy(true)
    setError(null)
    try {
      await work()
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, run }
}
