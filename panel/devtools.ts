import browser from 'webextension-polyfill';

// The path is from the extension root; the build keeps panel/index.html there.
void browser.devtools.panels.create('AG-UI', '', '/panel/index.html');
