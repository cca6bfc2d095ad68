import pkg from '../package.json' with { type: 'json' };

/** Who made a report or a recording, as HAR `creator` and SARIF `tool.driver` name it. */
export const TOOL = { name: pkg.name, version: pkg.version } as const;
