/**
 * The panel's views, in tab order (the digit keys follow it). A module of its own, importing nothing,
 * so `npm start` (scripts/start.ts) names the same views in node without loading the panel.
 */
export const VIEWS = [
  // The session's, not the selected exchange's: what went wrong across every exchange.
  { id: 'overview', label: 'Overview' },
  { id: 'input', label: 'Input' },
  { id: 'negotiation', label: 'Negotiation' },
  { id: 'stripped', label: 'Stripped members' },
  { id: 'identity', label: 'Identity & runs' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'findings', label: 'Findings' },
  { id: 'state', label: 'State & messages' },
  { id: 'waterfall', label: 'Waterfall' },
  { id: 'tools', label: 'Tools' },
] as const;
export type ViewId = (typeof VIEWS)[number]['id'];
