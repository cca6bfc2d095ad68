/** WebSocket capture against a real `ws` agent, in Chromium (test/e2e/websocket.ts). */
import { websocketTests } from './websocket.ts';

websocketTests('chrome');
