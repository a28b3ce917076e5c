/**
 * Per program in READ_ONLY_PROGRAMS: forms the classifier accepts, and forms it refuses with (part
 * of) the reason it gives. Each refused form is something the real program reads differently
 * from a plain read inside the working directory (it follows forever, writes, runs a program,
 * reads outside), or a syntax the classifier does not model exactly. The test runs them all;
 * `node scripts/shell-classifier-forms.ts` counts them per program.
 */
export interface ProgramForms {
  accepted: string[];
  refused: Array<[command: string, reason: string]>;
}

const OUTSIDE = 'is an absolute path';
const CLIMBS = 'climbs out with ".."';
const NOT_KNOWN = 'is not known to be read-only';

const cd: ProgramForms = {
  accepted: ['cd src', 'cd -P src', 'cd -LP src', 'cd -- src', 'cd src && ls'],
  refused: [
    ['cd', 'exactly one folder'], // $HOME
    ['cd -', 'exactly one folder'], // $OLDPWD
    ['cd -- -', 'exactly one folder'], // still $OLDPWD
    ['cd -P -', 'exactly one folder'],
    ['cd ..', CLIMBS],
    ['cd /etc', OUTSIDE],
    ['cd src -L', 'exactly one folder'], // bash builtins do not permute: two operands
    ['cd -e src', 'option -e'],
    ['cd -@ src', 'option -@'],
  ],
};

const echo: ProgramForms = {
  accepted: ['echo hello world', 'echo -n "a; b && c"', 'echo -e "a\\tb"', 'echo /etc/passwd ../x', "echo '$HOME'"],
  refused: [
    ['echo $HOME', 'expands a variable'],
    ['echo ~', 'expands `~`'],
  ],
};

const trueForms: ProgramForms = {
  accepted: ['true', 'true --anything /etc', 'true || ls'],
  refused: [['true > f', 'the shell operator `>`']],
};

const falseForms: ProgramForms = {
  accepted: ['false', 'false --anything ../x', 'false && ls'],
  refused: [['false; rm f', '"rm" is not a known read-only program']],
};

const pwd: ProgramForms = {
  accepted: ['pwd', 'pwd -P', 'pwd -LP'],
  refused: [
    ['pwd src', 'it takes no operands'],
    ['pwd -W', 'option -W'],
  ],
};

const ls: ProgramForms = {
  accepted: ['ls', 'ls -la', 'ls -la src test', 'ls --color=never -1 src', 'ls -I node_modules', 'ls --sort=time -r', 'ls -w 80 src', 'ls -- -weird-name'],
  refused: [
    ['ls /etc', OUTSIDE],
    ['ls ../..', CLIMBS],
    ['ls --colour', `option --colour ${NOT_KNOWN}`], // not an ls option
    ['ls --col', `option --col ${NOT_KNOWN}`], // an abbreviation
    ['ls -D', 'option -D'],
    ['ls --hyperlink', 'option --hyperlink'],
    ['ls -l=x', 'option -='],
    ['ls --all=yes', 'option --all takes no value'],
  ],
};

const cat: ProgramForms = {
  accepted: ['cat README.md', 'cat -n src/app.js', 'cat -A -- -f', 'cat -'],
  refused: [
    ['cat /proc/1/environ', OUTSIDE],
    ['cat ../secrets.env', CLIMBS],
    ['cat src/../../x', CLIMBS],
    ['cat --number=3 f', 'option --number takes no value'],
  ],
};

const head: ProgramForms = {
  accepted: ['head README.md', 'head -n 20 README.md', 'head -5 README.md', 'head -n -5 f', 'head -c 100 f', 'head -5 -- f', 'head -5 -n 3 f', 'head --lines=3 a b'],
  refused: [
    ['head -5c f', "head's obsolete count form"], // -N with letters (bytes, headers, NUL lines)
    ['head -2v f', "head's obsolete count form"],
    ['head f -5', 'a count like -5 is not read in this place'], // only the first argument is a count
    ['head -n 1 -5 f', 'a count like -5'],
    ['head -v5 f', 'a count like -v5'],
    ['head /etc/passwd', OUTSIDE],
    ['head -n', 'option -n needs a value'],
  ],
};

const tail: ProgramForms = {
  accepted: [
    'tail -n 20 server.log',
    'tail -n +10 src/app.js',
    'tail -c 100 f',
    'tail -20 f', // obsolete count: last 20 lines
    'tail +10 f', // obsolete count: from line 10
    'tail -5',
    'tail -5 -- f',
    'tail +1f a b', // three arguments: not the obsolete form, +1f is a file
    'tail -q a b',
  ],
  refused: [
    // finding 1: +N[bcl]f / -N[bcl]f follow the file forever
    ['tail +1f greet.sh', "tail's obsolete count form"],
    ['tail +0f -- greet.sh', "tail's obsolete count form"],
    ['tail -1f f', "tail's obsolete count form"],
    ['tail -cf f', "tail's obsolete count form"], // not -c with value "f": follows forever
    ['tail +1lf f', "tail's obsolete count form"],
    ['tail +f f', "tail's obsolete count form"],
    ['tail -f server.log', "tail's obsolete count form"],
    ['tail -f', "tail's obsolete count form"],
    ['tail -f a b', 'option -f'],
    ['tail -F a b', 'option -F'],
    ['tail --follow f', 'option --follow'],
    ['tail -s 1 f', 'option -s'],
    ['tail --pid=1 f', 'option --pid'],
    ['tail --retry f', 'option --retry'],
    // obsolete counts with letters that do not follow are not modelled either
    ['tail +2c f', "tail's obsolete count form"],
    ['tail -2b f', "tail's obsolete count form"],
    ['tail -l f', "tail's obsolete count form"],
    ['tail + f', "tail's obsolete count form"],
    ['tail -5 a b', 'a count like -5'], // a count elsewhere is an error
    ['tail -n 1 -2 f', 'a count like -2'],
    ['tail /var/log/syslog', OUTSIDE],
  ],
};

const tac: ProgramForms = {
  accepted: ['tac f', 'tac -s , f', 'tac -r -s "a+" f'],
  refused: [
    ['tac /etc/passwd', OUTSIDE],
    ['tac ../x', CLIMBS],
    ['tac -s', 'option -s needs a value'],
    ['tac --separ=, f', 'option --separ'], // an abbreviation
  ],
};

const nl: ProgramForms = {
  accepted: ['nl -ba src/app.js', 'nl -w 3 -s " " f'],
  refused: [
    ['nl ../f', CLIMBS],
    ['nl /etc/passwd', OUTSIDE],
    ['nl -b', 'option -b needs a value'],
    ['nl --bogus f', 'option --bogus'],
  ],
};

const wc: ProgramForms = {
  accepted: ['wc -l src/app.js', 'wc -lwc a b'],
  refused: [
    ['wc --files0-from=list', 'option --files0-from'], // reads the names of the files to read from a file
    ['wc --total=always f', 'option --total'],
    ['wc /etc/passwd', OUTSIDE],
  ],
};

const stat: ProgramForms = {
  accepted: ['stat README.md', 'stat -c %s README.md', 'stat --printf "%n %s" f', 'stat -L -t f'],
  refused: [
    ['stat /etc/shadow', OUTSIDE],
    ['stat --cached=never f', 'option --cached'],
    ['stat -c', 'option -c needs a value'],
  ],
};

const du: ProgramForms = {
  accepted: ['du -sh src', 'du -d 1 .', 'du --exclude=node_modules -h', 'du -a --max-depth=2'],
  refused: [
    ['du -X excludes.txt', 'option -X'], // reads patterns from a file
    ['du --exclude-from=excludes.txt', 'option --exclude-from'],
    ['du --files0-from=list', 'option --files0-from'],
    ['du -sh /', OUTSIDE],
  ],
};

const find: ProgramForms = {
  accepted: [
    "find . -name '*.ts' -type f",
    'find src -maxdepth 2 -newer package.json -print',
    "find . ! -path './node_modules/*' -name '*.json'",
    'find . -newermt 2024-01-01', // Y = t: the reference is a time
    "find . -newerat '1 hour ago'",
    'find . -newermm package.json', // Y = m: a file, inside
    'find . -samefile README.md',
    "find -L . -name '*.md' -print0",
    "find ')' ',' -name x", // `)` and `,` before the expression are starting points (files)
    'find - -name x', // and so is `-`
    "find . '(' -name a -o -name b ')' -prune",
    'find . -name -exec', // -exec is -name's value
    "find . -printf '%p %s\\n'",
  ],
  refused: [
    // finding 6: -newerXY with Y other than t reads a file
    ['find . -newermm /etc/shadow', OUTSIDE],
    ['find . -newerma ../secret', CLIMBS],
    ['find . -neweram /etc/shadow', OUTSIDE],
    ['find . -newerBc /etc/shadow', OUTSIDE],
    ['find . -newercm /proc/1/environ', OUTSIDE],
    ['find . -newertm f', '-newertm is not known'], // X = t is not a predicate
    ['find . -newer /etc/shadow', OUTSIDE],
    ['find . -anewer /etc/shadow', OUTSIDE],
    ['find . -cnewer ../x', CLIMBS],
    ['find . -samefile /etc/passwd', OUTSIDE],
    ['find /etc -name passwd', OUTSIDE],
    ['find . .. -name x', CLIMBS],
    // actions that run, delete or write
    ['find . -delete', '-delete is not known to be read-only'],
    ["find . -name '*.tmp' -delete", '-delete'],
    ["find . -exec rm '{}' ';'", '-exec'],
    ["find . -execdir sh -c id ';'", '-execdir'],
    ["find . -ok rm '{}' ';'", '-ok'],
    ["find . -okdir rm '{}' ';'", '-okdir'],
    ['find . -fprint out.txt', '-fprint'],
    ['find . -fprint0 out.txt', '-fprint0'],
    ["find . -fprintf out.txt '%p'", '-fprintf'],
    ['find . -fls out.txt', '-fls'],
    // starting points from a file, debug options, words find does not read as the classifier would
    ['find -files0-from list', '-files0-from is not known'],
    ['find -D search .', '-D is not known'],
    ['find -O3 .', '-O3 is not known'],
    ['find -- . -name x', '-- is not known'],
    ['find . -name', '-name needs a value'],
    ['find . -name x extra', 'expression word "extra" is not understood'],
    ["find . -name x '!x'", 'expression word "!x"'],
  ],
};

const grep: ProgramForms = {
  accepted: [
    'grep -rn TODO src',
    "grep -rn 'foo$' src",
    'grep -e -x -- src/app.js', // -x is the pattern
    "grep -E '(a|b)+' -C 3 src/app.js",
    'grep -5 needle f', // -NUM is context
    'grep -f patterns.txt src',
    "grep --include='*.ts' -r needle .",
    'grep -rn needle -- -dir',
  ],
  refused: [
    ['grep -r secret /etc', OUTSIDE],
    ['grep -f /etc/shadow README.md', OUTSIDE],
    ['grep -f/etc/shadow README.md', OUTSIDE],
    ['grep --file=/etc/shadow x', OUTSIDE],
    ['grep --exclude-from=../x -r a', CLIMBS],
    ['grep -n5 needle f', 'a count like -n5'], // digits bundled with letters: not modelled
    ['grep -X egrep a f', 'option -X'], // undocumented matcher option
    ['grep --fi=x a', 'option --fi'], // an abbreviation
  ],
};

const rg: ProgramForms = {
  accepted: [
    'rg -n "fn main" -g "*.rs"',
    'rg --files src',
    'rg -uu -i needle',
    'rg -f patterns.txt src',
    'rg -f=patterns.txt', // clap drops the `=`: the file is patterns.txt
    'rg -e -x -- src',
    'rg --max-depth 2 needle',
    'rg --engine=pcre2 needle',
    'rg --engine pcre2 needle', // --engine's value, then the pattern: both words are checked as if operands
  ],
  refused: [
    // clap reads `-f=FILE` and `--file==FILE` as FILE
    ['rg -f=/etc/shadow x', OUTSIDE],
    ['rg -f==/etc/shadow x', OUTSIDE],
    ['rg --file==/etc/shadow x', OUTSIDE],
    ['rg -if=/etc/shadow x', OUTSIDE],
    ['rg -f /etc/shadow x', OUTSIDE],
    ['rg needle /etc', OUTSIDE],
    // options that run programs or read config
    ['rg --pre ./evil needle', 'option --pre'],
    ['rg --pre=./evil needle', 'option --pre'],
    ['rg --pre-glob "*" needle', 'option --pre-glob'],
    ['rg -z needle', 'option -z'],
    ['rg --search-zip needle', 'option --search-zip'],
    ['rg --hostname-bin ./evil needle', 'option --hostname-bin'],
    ['rg --engine --pre=./evil needle', 'option --pre'], // --engine does not take a word starting with `-`
    ['rg --ignore-file /etc/x needle', 'option --ignore-file'],
    ['rg -d 2 needle', 'option -d'], // not an option of ripgrep 13
    ['rg --hid needle', 'option --hid'], // no abbreviations
  ],
};

const sed: ProgramForms = {
  accepted: ["sed -n '1,5p' README.md", "sed -n '/TODO/p;$p' src/app.js", "sed -nE '/a+/p' f", 'sed -n p -- -f', 'sed -n -s 1p a b'],
  refused: [
    ['sed -i s/a/b/ f', 'option -i'],
    ["sed -n 's/a/b/w out' f", 'is not only print commands'],
    ["sed -n '1e id' f", 'is not only print commands'],
    ["sed -n '1p;w out' f", 'is not only print commands'],
    ["sed -n '/a/w out' f", 'is not only print commands'],
    ["sed '1,5p' f", '-n is missing'],
    ["sed -n -e '1p' f", 'option -e'],
    ['sed -n -f script.sed f', 'option -f'],
    ["sed -n '1,5p' f -i", 'option -i'], // GNU tools permute options: -i after the file still edits
    ["sed -n 1p --in-place f", 'option --in-place'],
    ["sed -n '1p' /etc/passwd", OUTSIDE],
    ["sed -n '/[/]/p' f", 'is not only print commands'], // sed reads `[/]` as one bracket: not modelled
    ["sed -n '/a\\/w x/p' f", 'is not only print commands'],
    ['sed -n', 'there is no script'],
  ],
};

const sort: ProgramForms = {
  accepted: ['sort -u -k 2 names.txt', 'sort -t , -k 2n data.csv', 'sort -S 10M -r f', 'sort --check=quiet f', 'sort -'],
  refused: [
    ['sort -o out.txt names.txt', 'option -o'],
    ['sort --output=out.txt names.txt', 'option --output'],
    ['sort --compress-program=./evil big.txt', 'option --compress-program'],
    ['sort -T /tmp names.txt', 'option -T'],
    ['sort --random-source=/dev/urandom -R f', 'option --random-source'],
    ['sort --files0-from=list', 'option --files0-from'],
    ['sort +1 f', 'obsolete key +POS'], // a key, not a file
    ['sort +1 -2 f', 'a count like -2'],
    ['sort -y f', 'option -y'],
  ],
};

const cut: ProgramForms = {
  accepted: ['cut -d , -f 1 data.csv', 'cut -c1-10 f', 'cut --output-delimiter=: -f 2 f'],
  refused: [
    ['cut -f 1 /etc/passwd', OUTSIDE],
    ['cut -f', 'option -f needs a value'],
    ['cut --complement=yes -f 1 f', 'option --complement takes no value'],
  ],
};

const tr: ProgramForms = {
  accepted: ['tr a-z A-Z', "tr -d '\\r'", 'tr -s " "', 'tr -- -a b'],
  refused: [
    ['tr --bogus a b', 'option --bogus'],
    ['tr -x a b', 'option -x'],
  ],
};

const uniq: ProgramForms = {
  accepted: ['uniq -c sorted.txt', 'uniq -f 1 -s 2 f', 'uniq --group=append f', 'uniq'],
  refused: [
    ['uniq in.txt out.txt', 'a second operand is a file it writes'],
    ['uniq +2', 'obsolete skip-characters count'], // not a file
    ['uniq in +2', 'obsolete skip-characters count'],
    ['uniq -2 f', 'a count like -2'],
    ['uniq -c2 f', 'a count like -c2'],
  ],
};

const basename: ProgramForms = {
  accepted: ['basename src/app.js .js', 'basename -a a/b c/d', 'basename -s .js /abs/app.js'],
  refused: [
    ['basename --bogus x', 'option --bogus'],
    ['basename -s', 'option -s needs a value'],
  ],
};

const dirname: ProgramForms = {
  accepted: ['dirname src/app.js', 'dirname -z /a/b'],
  refused: [
    ['dirname -q x', 'option -q'],
    ['dirname --zero=yes x', 'option --zero takes no value'],
  ],
};

const which: ProgramForms = {
  accepted: ['which node git', 'which -a node', 'which node -a'], // getopts: -a after a name is a name
  refused: [
    ['which -s node', 'option -s'], // not an option of Debian's which
    ['which /etc/shadow', OUTSIDE], // a name with a `/` is tested as a file
  ],
};

const uname: ProgramForms = {
  accepted: ['uname', 'uname -a', 'uname -sr'],
  refused: [
    ['uname x', 'it takes no operands'],
    ['uname --bogus', 'option --bogus'],
  ],
};

const whoami: ProgramForms = {
  accepted: ['whoami'],
  refused: [
    ['whoami root', 'it takes no operands'],
    ['whoami --help', 'option --help'],
  ],
};

const git: ProgramForms = {
  accepted: [
    'git status',
    'git status --short -b',
    'git status --porcelain=v2 -uno',
    'git --no-pager diff',
    'git diff --cached --stat',
    'git diff HEAD~1 -- src/app.js',
    'git diff -S needle',
    'git log --oneline -5 HEAD~3',
    'git log -n 5 --format=%h%x09%s --author=alice',
    'git log --author alice --grep fix',
    'git log -p -- src',
    'git show --stat HEAD',
    'git branch',
    'git branch -a -v',
    'git branch --list "feat/*"',
    'git branch --merged', // alone: merged into HEAD
    'git branch --contains main',
    "git branch --format '%(refname)'",
    'git rev-parse --abbrev-ref HEAD',
    'git rev-parse --show-toplevel',
    'git ls-files -m',
    'git ls-files -x "*.log" -o',
    'git blame -L 1,5 src/app.js',
    'git -P log --graph --all --oneline',
  ],
  refused: [
    // another repository, config, programs
    ['git -c core.pager=sh status', 'option -c before the subcommand'],
    ['git -ccore.fsmonitor=./evil status', 'option -ccore.fsmonitor=./evil before the subcommand'],
    ['git --config-env=core.pager=X status', 'option --config-env=core.pager=X'],
    ['git -C /etc log', 'option -C before the subcommand'],
    ['git --git-dir=/srv/other/.git log', 'option --git-dir=/srv/other/.git'],
    ['git --work-tree=/ status', 'option --work-tree=/'],
    ['git --exec-path=./bin status', 'option --exec-path=./bin'],
    ['git -p log', 'option -p before the subcommand'],
    ['git --paginate log', 'option --paginate'],
    ['git diff --ext-diff', 'option --ext-diff'],
    ['git log -p --textconv', 'option --textconv'],
    ['git show --show-signature', 'option --show-signature'],
    ["git log --format='%G? %h'", '%G placeholders verify signatures'], // runs gpg (gpg.program) on signed commits
    ['git show --pretty=format:%GS', '%G placeholders verify signatures'],
    // files outside, or written
    ['git diff --no-index /etc/passwd /dev/null', 'option --no-index'],
    ['git diff /etc/passwd /dev/null', OUTSIDE],
    ['git diff ../../etc/passwd README.md', CLIMBS],
    ['git log --output=x', 'option --output'],
    ['git log --output x', 'option --output'],
    ['git log --outp=x', 'option --outp'], // git accepts abbreviations: never in the table
    ['git show --output=/tmp/x HEAD', 'option --output'],
    ['git diff -O /etc/order', 'option -O'],
    ['git blame --contents /etc/passwd f', 'option --contents'],
    ['git blame -S /etc/revs f', 'option -S'],
    ['git ls-files --exclude-from=/etc/shadow', 'option --exclude-from'],
    ['git ls-files -X /etc/shadow', 'option -X'],
    // an option that takes the next word takes `--` too: what follows is options, not paths
    ['git ls-files -x -- --exclude-from=/etc/shadow', 'option --exclude-from'],
    ['git ls-files --format -- --exclude-from=/etc/shadow', 'option --exclude-from'],
    ['git branch --list --format -- -D main', 'option -D'],
    ['git branch --list --contains -- -D main', 'option -D'],
    // git splits at `--` before reading options, so `-S --` is an error there; here `--` is -S's value
    ['git log -S -- --output=x', 'option --output'],
    // writes, other subcommands
    ['git fetch --upload-pack=./evil origin', 'fetch is not a known read-only git subcommand'],
    ['git push --receive-pack=./evil', 'push is not a known read-only git subcommand'],
    ['git rebase --exec ./evil main', 'rebase is not a known read-only git subcommand'],
    ['git checkout status', 'checkout is not a known read-only git subcommand'],
    ['git branch -D main', 'option -D'],
    ['git branch new-feature', '"new-feature" would create a branch'],
    ['git branch -m old new', 'option -m'],
    ['git branch --sort', 'option --sort needs a value'],
    ['git status --help', 'option --help'],
    ['git', 'there is no subcommand'],
  ],
};

export const PROGRAM_FORMS: Readonly<Record<string, ProgramForms>> = {
  cd,
  echo,
  false: falseForms,
  pwd,
  true: trueForms,
  ls,
  cat,
  head,
  tail,
  tac,
  nl,
  wc,
  stat,
  du,
  find,
  grep,
  rg,
  sed,
  sort,
  cut,
  tr,
  uniq,
  basename,
  dirname,
  which,
  uname,
  whoami,
  git,
};
