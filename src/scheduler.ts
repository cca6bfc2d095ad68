/** The Prioritized Task Scheduling API (Chrome 94, Firefox 142), where there is one; not in TypeScript's DOM types yet. */
export const scheduler = (globalThis as { scheduler?: { postTask(task: () => void, o: { priority: 'background' }): Promise<void> } }).scheduler;
