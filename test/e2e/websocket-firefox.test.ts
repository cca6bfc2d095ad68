/** WebSocket capture against a real `ws` agent, in Firefox (test/e2e/websocket.ts). */
import { websocketTests } from './websocket.ts';

websocketTests('firefox');
