/**
 * The console's one stylesheet, inline (no external assets): small, light/dark, and stacking on
 * narrow screens (tables marked `stack` turn into one card per row below 40rem).
 */
export const STYLESHEET = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#59636e;--bg:#fff;--card:#f6f8fa;--line:#d1d9e0;--accent:#0969da;--ok:#1a7f37;--bad:#cf222e;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--card:#151b23;--line:#3d444d;--accent:#4493f8;--ok:#2ea043;--bad:#da3633}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);line-height:1.45}
a{color:var(--accent)}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;color:inherit;text-decoration:none}
nav{display:flex;flex-wrap:wrap;gap:.25rem}
nav a{padding:.3rem .6rem;border-radius:6px;color:var(--fg);text-decoration:none}
nav a[aria-current]{background:var(--card);font-weight:600}
.who{margin-left:auto;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;color:var(--muted);font-size:.9rem}
main{max-width:76rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.card{border:1px solid var(--line);border-radius:8px;padding:1rem;margin:0 0 1rem;background:var(--card)}
.card h2{margin:0 0 .5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem .75rem;margin:.5rem 0}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
pre{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.6rem;overflow:auto;max-height:20rem;white-space:pre-wrap;overflow-wrap:anywhere;margin:.5rem 0}
code{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}
.scroll{overflow-x:auto}
th,td{text-align:left;padding:.4rem .4rem;border-bottom:1px solid var(--line);vertical-align:top}
tr.broken td{background:color-mix(in srgb,var(--bad) 18%,transparent)}
button,input,select,textarea{font:inherit}
button{padding:.4rem .9rem;border-radius:6px;border:1px solid var(--line);background:var(--bg);color:var(--fg);cursor:pointer}
button.approve{background:var(--ok);border-color:var(--ok);color:#fff}
button.reject,button.danger{background:var(--bad);border-color:var(--bad);color:#fff}
button.link{border:0;background:none;color:var(--accent);padding:0;text-decoration:underline}
input,select,textarea{width:100%;padding:.45rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
label{display:block;margin:.5rem 0}
form.inline{display:inline}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:0 0 1rem}
.row>label{flex:1 1 12rem;margin:0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.5rem}
.notice{padding:.6rem .8rem;border-radius:6px;border:1px solid var(--line);margin:0 0 1rem;background:var(--card)}
.notice.ok{border-color:var(--ok)}
.notice.bad{border-color:var(--bad)}
.badge{display:inline-block;padding:0 .5rem;border-radius:999px;border:1px solid var(--line);font-size:.8rem}
.badge.ok{border-color:var(--ok);color:var(--ok)}
.badge.bad{border-color:var(--bad);color:var(--bad)}
.muted{color:var(--muted)}
.small{font-size:.8rem}
.actions select{width:auto}
.key-actions{display:grid;gap:.4rem;width:11rem}
.key-actions form{display:grid;grid-template-columns:1fr auto;gap:.4rem;margin:0}
.key-actions .grace{grid-column:1/-1;margin:0}
.key-actions form.inline{display:block}
.nowrap{white-space:nowrap}
.secret{font-family:ui-monospace,monospace;padding:.6rem;border:2px dashed var(--ok);border-radius:6px;overflow-wrap:anywhere;user-select:all}
@media (max-width:40rem){
table.stack thead{display:none}
table.stack tr{display:block;border:1px solid var(--line);border-radius:8px;margin:0 0 .75rem;padding:.4rem}
table.stack td{display:block;border:0;padding:.15rem .3rem}
table.stack td[data-label]::before{content:attr(data-label) ": ";color:var(--muted)}
dl{gap:.2rem .6rem}
.who{margin-left:0}
}
`.trim();

/**
 * The one script: ticks the server-rendered expiry countdowns (`<time data-countdown>`) once a
 * second, with the same words as remainingTime. Everything works without it.
 */
export const COUNTDOWN_SCRIPT = `(()=>{const f=(ms)=>{const s=Math.floor(Math.abs(ms)/1e3),m=Math.floor(s/60),h=Math.floor(m/60),w=s<60?s+' s':m<60?m+' min '+s%60+' s':h<48?h+' h '+m%60+' min':Math.floor(h/24)+' days';return ms>0?'in '+w:w+' ago'};const tick=()=>{for(const t of document.querySelectorAll('time[data-countdown]'))t.textContent=f(Date.parse(t.dateTime)-Date.now())};setInterval(tick,1000)})();`;
