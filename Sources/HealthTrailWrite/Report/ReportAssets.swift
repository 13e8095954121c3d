/// The style and the script `report.html` carries inline: hand-written, no library.
enum ReportAssets {
    /// One style sheet for the whole page: charts, tables and maps share its classes, so no
    /// element carries a style of its own. The heart-rate ramp's classes (`.h0` …) follow it.
    static let style = """
        :root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#222;background:#fff}
        body{margin:0 auto;max-width:1200px;padding:0 12px 40px;line-height:1.4}
        h1{font-size:1.6rem;margin:16px 0 4px}h2{font-size:1.3rem;margin:28px 0 8px;border-bottom:1px solid #ddd}
        nav a{margin-right:12px}a{color:#1a4fa0}
        .note{color:#555;font-size:.9rem}
        .trends{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:12px}
        figure{margin:0}figcaption{font-weight:600;font-size:.95rem}
        .trend svg{width:100%;height:auto;max-width:420px;display:block}
        .chart text,.sleep text{font-family:inherit}
        .bars rect{fill:#9cc3e6}.bars circle{fill:#2c6fb7}.roll{fill:none;stroke:#c0392b;stroke-width:2}.axis,.grid{stroke:#bbb;stroke-width:1}
        .scroll{overflow-x:auto}
        table{border-collapse:collapse;margin:8px 0;font-size:.9rem}
        caption{text-align:left;font-weight:600;padding:4px 0}
        th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:middle}
        td[data-v]{text-align:right;font-variant-numeric:tabular-nums}
        th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:#1a4fa0}
        th[aria-sort=ascending] button::after{content:" ▲"}th[aria-sort=descending] button::after{content:" ▼"}
        .thumb polyline{fill:none;stroke:#c0392b;stroke-width:1.5;stroke-linejoin:round}
        details.workout{border:1px solid #ddd;border-radius:6px;margin:6px 0;padding:4px 10px}
        details.workout summary{cursor:pointer;font-weight:600}
        .facts{display:flex;flex-wrap:wrap;gap:4px 20px;margin:8px 0}.facts dt{font-size:.8rem;color:#555}.facts dd{margin:0}
        .map svg.route{width:100%;max-width:640px;height:auto;max-height:70vh;display:block;border:1px solid #ccc;background:#f7f7f4;touch-action:none;cursor:grab}
        .route path{fill:none;stroke-width:3;stroke-linecap:round;stroke-linejoin:round}.route .nohr{stroke:#888}
        .mark{fill:#fff;stroke:#000;stroke-width:2;pointer-events:none}
        .mapctl button{font:inherit;margin:4px 4px 4px 0;min-width:2.2em}
        .map figcaption{font-weight:400;display:flex;align-items:center;gap:6px;flex-wrap:wrap;font-size:.85rem}
        #tip{position:fixed;z-index:9;background:#222;color:#fff;padding:4px 8px;border-radius:4px;font-size:.85rem;pointer-events:none}
        .s-deep{fill:#283593;background:#283593}.s-core{fill:#5c8dd6;background:#5c8dd6}.s-rem{fill:#4fc3c7;background:#4fc3c7}
        .s-asleep{fill:#7e8fc4;background:#7e8fc4}.s-awake{fill:#f0b27a;background:#f0b27a}
        .key{display:inline-block;width:12px;height:12px;margin:0 4px 0 10px;vertical-align:middle}
        :focus-visible{outline:3px solid #f39c12;outline-offset:2px}
        @media (max-width:600px){th,td{padding:3px 4px}.trends{grid-template-columns:1fr}}
        """

    /// The page's interaction: sorting the workout table, opening a workout from a link, a
    /// map's pan and zoom (its view box) and the hover tooltip. It records a script error or a
    /// blocked request on the root element (`data-error`, `data-blocked`) and `data-ready` once
    /// it has set up, for a headless browser to read.
    static let script = """
        (function(){
        var root=document.documentElement;
        window.addEventListener('error',function(e){root.setAttribute('data-error',String(e.message))});
        document.addEventListener('securitypolicyviolation',function(e){root.setAttribute('data-blocked',String(e.blockedURI))});
        function num(v){return v===''?null:(isNaN(+v)?v:+v)}
        var table=document.getElementById('workout-table');
        if(table){table.querySelectorAll('th button').forEach(function(b,col){b.addEventListener('click',function(){
          var th=b.parentNode,asc=th.getAttribute('aria-sort')!=='ascending';
          table.querySelectorAll('th[aria-sort]').forEach(function(t){t.removeAttribute('aria-sort')});
          th.setAttribute('aria-sort',asc?'ascending':'descending');
          var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
          rows.sort(function(r,s){var a=r.cells[col],c=s.cells[col];
            a=a.hasAttribute('data-v')?num(a.getAttribute('data-v')):a.textContent;c=c.hasAttribute('data-v')?num(c.getAttribute('data-v')):c.textContent;
            if(a===null)return c===null?0:1;if(c===null)return -1;return (a<c?-1:a>c?1:0)*(asc?1:-1)});
          rows.forEach(function(r){body.appendChild(r)})})})}
        function openHash(){var id=decodeURIComponent(location.hash.slice(1)),d=id&&document.getElementById(id);
          if(d&&d.tagName==='DETAILS'){d.open=true;d.scrollIntoView()}}
        window.addEventListener('hashchange',openHash);openHash();
        var tip=document.getElementById('tip');
        function clock(s){var m=Math.floor(s/60),h=Math.floor(m/60),ss=('0'+s%60).slice(-2);return h?h+':'+('0'+m%60).slice(-2)+':'+ss:m+':'+ss}
        function wall(s){s%=86400;var two=function(n){return ('0'+n).slice(-2)};return two(Math.floor(s/3600))+':'+two(Math.floor(s/60)%60)+':'+two(s%60)}
        document.querySelectorAll('svg.route').forEach(function(svg){
          var vb=svg.viewBox.baseVal,full=[vb.x,vb.y,vb.width,vb.height],mark=svg.querySelector('.mark');
          var pts=svg.getAttribute('data-p').split(';').map(function(p){return p.split(',')}),t0=+svg.getAttribute('data-t0');
          function set(x,y,w,h){svg.setAttribute('viewBox',[x,y,w,h].join(' '))}
          function zoom(f,cx,cy){if(cx===undefined){cx=vb.x+vb.width/2;cy=vb.y+vb.height/2}
            var w=Math.min(full[2]*2,Math.max(full[2]/40,vb.width*f)),k=w/vb.width;set(cx-(cx-vb.x)*k,cy-(cy-vb.y)*k,w,vb.height*k)}
          function pan(dx,dy){set(vb.x+dx,vb.y+dy,vb.width,vb.height)}
          function at(e){var m=svg.getScreenCTM();if(!m)return null;var p=svg.createSVGPoint();p.x=e.clientX;p.y=e.clientY;return p.matrixTransform(m.inverse())}
          svg.parentNode.querySelectorAll('[data-zoom]').forEach(function(b){b.addEventListener('click',function(){
            var z=b.getAttribute('data-zoom');if(z==='reset')set.apply(null,full);else zoom(z==='in'?0.5:2)})});
          svg.addEventListener('keydown',function(e){var s=vb.width/10,k=e.key;
            if(k==='ArrowLeft')pan(-s,0);else if(k==='ArrowRight')pan(s,0);else if(k==='ArrowUp')pan(0,-s);else if(k==='ArrowDown')pan(0,s);
            else if(k==='+'||k==='=')zoom(0.5);else if(k==='-')zoom(2);else if(k==='0')set.apply(null,full);else return;e.preventDefault()});
          svg.addEventListener('wheel',function(e){var p=at(e);if(!p)return;e.preventDefault();zoom(e.deltaY<0?0.8:1.25,p.x,p.y)},{passive:false});
          var drag=null;
          svg.addEventListener('pointerdown',function(e){drag=at(e);if(svg.setPointerCapture)svg.setPointerCapture(e.pointerId)});
          svg.addEventListener('pointerup',function(){drag=null});
          svg.addEventListener('pointerleave',function(){tip.hidden=true;mark.setAttribute('cx',-20)});
          svg.addEventListener('pointermove',function(e){var p=at(e);if(!p)return;
            if(drag){pan(drag.x-p.x,drag.y-p.y);return}
            var best=null,bd=Infinity;pts.forEach(function(q){var dx=q[0]-p.x,dy=q[1]-p.y,d=dx*dx+dy*dy;if(d<bd){bd=d;best=q}});
            if(!best||bd>Math.pow(vb.width/15,2)){tip.hidden=true;return}
            mark.setAttribute('cx',best[0]);mark.setAttribute('cy',best[1]);mark.setAttribute('r',vb.width/100);
            var t=[wall(t0+ +best[2])+' ('+clock(+best[2])+' in)'];if(best[3])t.push(best[3]+' bpm');if(best[4])t.push(clock(+best[4])+' /km');if(best[5])t.push(best[5]+' m');
            tip.textContent=t.join(' · ');tip.hidden=false;tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px'})});
        root.setAttribute('data-ready','1');
        })();
        """
}
