<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>installed, not loaded</source>
        <translation>instalado, não carregado</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>não instalado</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>indisponível</translation>
    </message>
    <message>
        <source>packaged app</source>
        <translation>aplicativo empacotado</translation>
    </message>
    <message>
        <source>from source</source>
        <translation>a partir do código-fonte</translation>
    </message>
    <message>
        <source>Running on</source>
        <translation>Executando em</translation>
    </message>
    <message>
        <source>Live, touchable panels for the attention mechanism of transformers.</source>
        <translation>Painéis interativos, ao vivo, para explorar o mecanismo de atenção dos transformers.</translation>
    </message>
    <message>
        <source>Released under the MIT License.</source>
        <translation>Distribuído sob a Licença MIT.</translation>
    </message>
    <message>
        <source>About attnviz</source>
        <translation>Sobre o attnviz</translation>
    </message>
</context>
<context>
    <name>BusyIndicator</name>
    <message>
        <source>Computing…</source>
        <translation>Calculando…</translation>
    </message>
    <message>
        <source>The matrix is being recomputed; the last one stays shown.</source>
        <translation>A matriz está sendo recalculada; a anterior continua na tela.</translation>
    </message>
    <message>
        <source>Could not recompute: %1</source>
        <translation>Não foi possível recalcular: %1</translation>
    </message>
</context>
<context>
    <name>ControlsPanel</name>
    <message>
        <source>S  scores  QKᵀ / √d_k</source>
        <extracomment>Write at most once per frame of a 60 Hz display while a slider is dragged.</extracomment>
        <translation>S  pontuações  QKᵀ / √d_k</translation>
    </message>
    <message>
        <source>S: the scaled score of every query with every key</source>
        <translation>S: a pontuação (score) escalada de cada consulta com cada chave</translation>
    </message>
    <message>
        <source>A  weights  softmax(S)</source>
        <translation>A  pesos  softmax(S)</translation>
    </message>
    <message>
        <source>A: each row is a probability distribution over the keys</source>
        <translation>A: cada linha é uma distribuição de probabilidade sobre as chaves</translation>
    </message>
    <message>
        <source>O  output  A·V</source>
        <translation>O  saída  A·V</translation>
    </message>
    <message>
        <source>O: each query&apos;s weighted mix of the values</source>
        <translation>O: para cada consulta, a mistura dos valores ponderada pelos pesos</translation>
    </message>
    <message>
        <source>diverging (for scores)</source>
        <translation>divergente (para pontuações)</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>Controles</translation>
    </message>
    <message>
        <source>Scores</source>
        <translation>Pontuações</translation>
    </message>
    <message>
        <source>Divide scores by √d_k</source>
        <translation>Dividir as pontuações por √d_k</translation>
    </message>
    <message>
        <source>Without the divisor, large d_k makes the softmax a hard argmax</source>
        <translation>Sem o divisor, um d_k grande transforma o softmax num argmax rígido</translation>
    </message>
    <message>
        <source>T = 1</source>
        <translation>T = 1</translation>
    </message>
    <message>
        <source>Back to the plain softmax (temperature 1)</source>
        <translation>Voltar ao softmax comum (temperatura 1)</translation>
    </message>
    <message>
        <source>Te&amp;mperature</source>
        <translation>&amp;Temperatura</translation>
    </message>
    <message>
        <source>Scores are divided by T: below 1 sharpens, above 1 flattens</source>
        <translation>As pontuações são divididas por T: abaixo de 1 a atenção se concentra, acima de 1 se espalha</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>Mostrar</translation>
    </message>
    <message>
        <source>Matrix</source>
        <translation>Matriz</translation>
    </message>
    <message>
        <source>&amp;Colormap</source>
        <translation>&amp;Mapa de cores</translation>
    </message>
    <message>
        <source>Automatic levels</source>
        <translation>Níveis automáticos</translation>
    </message>
    <message>
        <source>Stretch the colours over the data, or fix them below</source>
        <translation>Estender as cores pela faixa dos dados, ou fixá-las abaixo</translation>
    </message>
    <message>
        <source>low </source>
        <translation>mín. </translation>
    </message>
    <message>
        <source>high </source>
        <translation>máx. </translation>
    </message>
    <message>
        <source>Levels</source>
        <translation>Níveis</translation>
    </message>
    <message>
        <source>Exact value: %1</source>
        <translation>Valor exato: %1</translation>
    </message>
</context>
<context>
    <name>CrashDialog</name>
    <message>
        <source>attnviz: unexpected error</source>
        <translation>attnviz: erro inesperado</translation>
    </message>
    <message>
        <source>Something went wrong, but attnviz is still running.</source>
        <translation>Algo deu errado, mas o attnviz continua funcionando.</translation>
    </message>
    <message>
        <source>The details were written to:</source>
        <translation>Os detalhes foram gravados em:</translation>
    </message>
</context>
<context>
    <name>EditorPanel</name>
    <message>
        <source>manual (typed vectors)</source>
        <translation>manual (vetores à mão)</translation>
    </message>
    <message>
        <source>content matching</source>
        <translation>por conteúdo</translation>
    </message>
    <message>
        <source>previous token</source>
        <translation>token anterior</translation>
    </message>
    <message>
        <source>distance decay</source>
        <translation>decai com a distância</translation>
    </message>
    <message>
        <source>Tokens and vectors</source>
        <extracomment>Beyond this many tokens the arrows would be a hedge, and slow to drag; the table remains.</extracomment>
        <translation>Tokens e vetores</translation>
    </message>
    <message>
        <source>Arrows are drawn when d_k = 2.</source>
        <translation>As setas aparecem quando d_k = 2.</translation>
    </message>
    <message>
        <source>Type a sentence and press Enter</source>
        <translation>Digite uma frase e pressione Enter</translation>
    </message>
    <message>
        <source>Split on spaces and punctuation into tokens</source>
        <translation>Divide a frase em tokens nos espaços e nos sinais de pontuação</translation>
    </message>
    <message>
        <source>&amp;Sentence</source>
        <translation>&amp;Frase</translation>
    </message>
    <message>
        <source>Tokenize</source>
        <translation>Tokenizar</translation>
    </message>
    <message>
        <source>Type the vectors yourself, or let a synthetic head make them</source>
        <translation>Digite os vetores você mesmo ou deixe que uma cabeça sintética os gere</translation>
    </message>
    <message>
        <source>The random draw behind a synthetic head</source>
        <translation>O sorteio aleatório por trás da cabeça sintética</translation>
    </message>
    <message>
        <source>S&amp;eed</source>
        <translation>Se&amp;mente</translation>
    </message>
    <message>
        <source>&amp;Head</source>
        <translation>&amp;Cabeça</translation>
    </message>
    <message>
        <source>&amp;d_k</source>
        <translation>&amp;d_k</translation>
    </message>
    <message>
        <source>Width of the queries and keys (slider: powers of two)</source>
        <translation>Largura das consultas e das chaves (controle deslizante: potências de dois)</translation>
    </message>
    <message>
        <source>Showing the first %1 dimensions of q and k (of %2) and of v (of %3).</source>
        <translation>Mostrando as primeiras %1 dimensões de q e k (de %2) e de v (de %3).</translation>
    </message>
    <message>
        <source>Double-click or type into a cell to edit it.</source>
        <translation>Duplo clique ou digite numa célula para editar.</translation>
    </message>
    <message>
        <source>Arrows are drawn for up to %1 tokens.</source>
        <translation>As setas aparecem para até %1 tokens.</translation>
    </message>
    <message>
        <source>Try:</source>
        <translation>Experimente:</translation>
    </message>
    <message>
        <source>Apply this change to the example, all else as shipped</source>
        <translation>Aplicar esta mudança ao exemplo, com todo o resto como no original</translation>
    </message>
    <message>
        <source>Reset example</source>
        <translation>Restaurar exemplo</translation>
    </message>
    <message>
        <source>The sentence has no tokens.</source>
        <translation>A frase não tem nenhum token.</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export Heatmap</source>
        <extracomment>(width, height) offered; None = custom.</extracomment>
        <translation>Exportar mapa de calor</translation>
    </message>
    <message>
        <source>PNG image (exact pixel size)</source>
        <translation>Imagem PNG (tamanho exato em pixels)</translation>
    </message>
    <message>
        <source>SVG vector drawing</source>
        <translation>Desenho vetorial SVG</translation>
    </message>
    <message>
        <source>CSV table of the matrix (with token headers)</source>
        <translation>Tabela CSV da matriz (com os tokens nos cabeçalhos)</translation>
    </message>
    <message>
        <source>NumPy .npy array of the matrix</source>
        <translation>Array NumPy .npy da matriz</translation>
    </message>
    <message>
        <source>&amp;Format</source>
        <translation>&amp;Formato</translation>
    </message>
    <message>
        <source>S  scores</source>
        <translation>S  pontuações</translation>
    </message>
    <message>
        <source>A  weights</source>
        <translation>A  pesos</translation>
    </message>
    <message>
        <source>O  output</source>
        <translation>O  saída</translation>
    </message>
    <message>
        <source>&amp;Matrix</source>
        <translation>&amp;Matriz</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Personalizado</translation>
    </message>
    <message>
        <source>&amp;Size</source>
        <translation>&amp;Tamanho</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Claro</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Escuro</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>T&amp;ema</translation>
    </message>
    <message>
        <source>Transparent background</source>
        <translation>Fundo transparente</translation>
    </message>
    <message>
        <source>automatic: the formula and the preset&apos;s title</source>
        <translation>automático: a fórmula e o título do exemplo</translation>
    </message>
    <message>
        <source>T&amp;itle</source>
        <translation>Tít&amp;ulo</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>&amp;Salvar…</translation>
    </message>
    <message>
        <source>&amp;Copy Image</source>
        <translation>&amp;Copiar imagem</translation>
    </message>
    <message>
        <source>The image is exactly this many pixels, whatever the screen.</source>
        <translation>A imagem terá exatamente esse número de pixels, seja qual for a tela.</translation>
    </message>
    <message>
        <source>Numbers are written in full precision; rows are queries.</source>
        <translation>Os números são gravados com precisão total; cada linha é uma consulta.</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Falha ao exportar</translation>
    </message>
    <message>
        <source>Copy failed</source>
        <translation>Falha ao copiar</translation>
    </message>
    <message>
        <source>Copied to the clipboard.</source>
        <translation>Copiado para a área de transferência.</translation>
    </message>
</context>
<context>
    <name>HeatmapPanel</name>
    <message>
        <source>how well each query matches each key</source>
        <extracomment>pyqtgraph maps behind the state&apos;s colormap names; the diverging one is for scores.</extracomment>
        <translation>o quanto cada consulta combina com cada chave</translation>
    </message>
    <message>
        <source>each row is a probability distribution over the keys</source>
        <translation>cada linha é uma distribuição de probabilidade sobre as chaves</translation>
    </message>
    <message>
        <source>each row is the query&apos;s mix of the values</source>
        <translation>cada linha é a mistura de valores da sua consulta</translation>
    </message>
    <message>
        <source>value dimension</source>
        <translation>dimensão do valor</translation>
    </message>
    <message>
        <source>key</source>
        <translation>chave</translation>
    </message>
    <message>
        <source>query</source>
        <translation>consulta</translation>
    </message>
    <message>
        <source>entropy (nats)</source>
        <translation>entropia (nats)</translation>
    </message>
    <message>
        <source>Attention matrix</source>
        <translation>Matriz de atenção</translation>
    </message>
    <message>
        <source>%1  query “%2”, dimension “%3” = %4</source>
        <extracomment>The hover text (formatted), for the status bar; empty when the mouse leaves.</extracomment>
        <translation>%1  consulta “%2”, dimensão “%3” = %4</translation>
    </message>
    <message>
        <source>%1  query “%2” → key “%3”: masked (this query may not see this key)</source>
        <translation>%1  consulta “%2” → chave “%3”: mascarada (esta consulta não pode ver esta chave)</translation>
    </message>
    <message>
        <source>%1  query “%2” → key “%3” = %4</source>
        <translation>%1  consulta “%2” → chave “%3” = %4</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>The new language takes effect the next time attnviz starts.</source>
        <extracomment>Shipped languages and their names in their own language (never translated, so that a user lost in a language they cannot read still finds their own). The menu choices: the system&apos;s language, or one of :data:`LANGUAGES`. Translation catalogues of Qt itself (standard buttons, file dialogs, context menus).</extracomment>
        <translation>O novo idioma passa a valer na próxima vez que o attnviz for aberto.</translation>
    </message>
    <message>
        <source>The choice is saved, but the ATTNVIZ_LANG environment variable (%1) overrides it while it is set.</source>
        <translation>A escolha foi salva, mas a variável de ambiente ATTNVIZ_LANG (%1) tem prioridade sobre ela enquanto estiver definida.</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Idioma</translation>
    </message>
</context>
<context>
    <name>LogSlider</name>
    <message>
        <source>Exact value: %1</source>
        <translation>Valor exato: %1</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Arquivo</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>&amp;Exportar…</translation>
    </message>
    <message>
        <source>Save the heatmap as PNG or SVG at slide size, or its matrix as CSV or NPY</source>
        <translation>Salvar o mapa de calor como PNG ou SVG no tamanho de slide, ou a matriz como CSV ou NPY</translation>
    </message>
    <message>
        <source>&amp;Copy Heatmap Image</source>
        <translation>&amp;Copiar imagem do mapa de calor</translation>
    </message>
    <message>
        <source>Copy the heatmap as a 1920×1080 image to the clipboard</source>
        <translation>Copiar o mapa de calor como imagem de 1920×1080 para a área de transferência</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>Sai&amp;r</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Editar</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>E&amp;xibir</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>&amp;Restaurar layout</translation>
    </message>
    <message>
        <source>Put every panel back where it was at first start</source>
        <translation>Devolver cada painel ao lugar em que estava na primeira execução</translation>
    </message>
    <message>
        <source>&amp;Full Screen</source>
        <translation>&amp;Tela cheia</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>T&amp;ema</translation>
    </message>
    <message>
        <source>Follow the &amp;System</source>
        <translation>Seguir o &amp;sistema</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Claro</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Escuro</translation>
    </message>
    <message>
        <source>&amp;Large Fonts (Projector)</source>
        <translation>&amp;Fontes grandes (projetor)</translation>
    </message>
    <message>
        <source>Bigger text everywhere, for the back row of a lecture hall</source>
        <translation>Texto maior em toda parte, para quem senta no fundo do auditório</translation>
    </message>
    <message>
        <source>La&amp;nguage</source>
        <translation>&amp;Idioma</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>Aj&amp;uda</translation>
    </message>
    <message>
        <source>&amp;About attnviz</source>
        <translation>&amp;Sobre o attnviz</translation>
    </message>
    <message>
        <source>Main Toolbar</source>
        <translation>Barra de ferramentas principal</translation>
    </message>
    <message>
        <source>&amp;Preset: </source>
        <translation>Exem&amp;plo: </translation>
    </message>
    <message>
        <source>Load one of the documents&apos; worked examples</source>
        <translation>Carregar um dos exemplos resolvidos nos documentos</translation>
    </message>
    <message>
        <source>attnviz</source>
        <extracomment>Bump when the set or arrangement of docks changes, so an old saved layout is ignored. (module, class, default area) of each panel, in the order they are docked.</extracomment>
        <translation>attnviz</translation>
    </message>
    <message>
        <source>Heatmap copied to the clipboard</source>
        <translation>Mapa de calor copiado para a área de transferência</translation>
    </message>
    <message>
        <source>n = %1 tokens · d_k = %2</source>
        <translation>n = %1 tokens · d_k = %2</translation>
    </message>
</context>
<context>
    <name>MaskBox</name>
    <message>
        <source>Masks</source>
        <translation>Máscaras</translation>
    </message>
    <message>
        <source>&amp;Causal: each token sees only itself and earlier ones</source>
        <translation>&amp;Causal: cada token vê só a si mesmo e os anteriores</translation>
    </message>
    <message>
        <source>Checked tokens are padding: no query may attend to them</source>
        <translation>Os tokens marcados são preenchimento (padding): nenhuma consulta pode prestar atenção neles</translation>
    </message>
    <message>
        <source>&amp;Padding</source>
        <translation>Pree&amp;nchimento</translation>
    </message>
    <message>
        <source>one document id per token, e.g. 0 0 1 1 1</source>
        <translation>um id de documento por token, p. ex. 0 0 1 1 1</translation>
    </message>
    <message>
        <source>Packed documents: a token attends only within its own document</source>
        <translation>Documentos empacotados: cada token só presta atenção dentro do próprio documento</translation>
    </message>
    <message>
        <source>Split after query</source>
        <translation>Dividir após a consulta</translation>
    </message>
    <message>
        <source>Start a new document after the selected query token</source>
        <translation>Começar um novo documento depois do token da consulta selecionada</translation>
    </message>
    <message>
        <source>One document</source>
        <translation>Um documento</translation>
    </message>
    <message>
        <source>&amp;Documents</source>
        <translation>&amp;Documentos</translation>
    </message>
    <message>
        <source>off</source>
        <translation>desligada</translation>
    </message>
    <message>
        <source>Each query sees only keys fewer than this many steps away</source>
        <translation>Cada consulta só vê as chaves a menos desta quantidade de passos</translation>
    </message>
    <message>
        <source>look both ways</source>
        <translation>olhar para os dois lados</translation>
    </message>
    <message>
        <source>Off: only earlier keys (causal window); on: |i − j| &lt; size</source>
        <translation>Desmarcado: só as chaves anteriores (janela causal); marcado: |i − j| &lt; tamanho</translation>
    </message>
    <message>
        <source>Sliding &amp;window</source>
        <translation>&amp;Janela deslizante</translation>
    </message>
    <message>
        <source>Document ids must be whole numbers ≥ 0, one per token</source>
        <translation>Os ids de documento devem ser números inteiros ≥ 0, um por token</translation>
    </message>
    <message>
        <source>%1 document ids for %2 tokens: give one per token</source>
        <translation>%1 ids de documento para %2 tokens: informe um por token</translation>
    </message>
</context>
<context>
    <name>Preset</name>
    <message>
        <source>Backward pass of one head: the reference run</source>
        <translation>Retropropagação numa cabeça: a execução de referência</translation>
    </message>
    <message>
        <source>Hand-worked example: sentei · banco · praça</source>
        <translation>Exemplo feito à mão: sentei · banco · praça</translation>
    </message>
    <message>
        <source>Give “praça” the value [0, 1]</source>
        <translation>Dar a “praça” o valor [0, 1]</translation>
    </message>
    <message>
        <source>Move the query of “banco” to [1, 0]</source>
        <translation>Mover a consulta de “banco” para [1, 0]</translation>
    </message>
    <message>
        <source>Zero the query of “banco”</source>
        <translation>Zerar a consulta de “banco”</translation>
    </message>
    <message>
        <source>Orthogonal query and key: a score of zero</source>
        <translation>Consulta e chave ortogonais: pontuação zero</translation>
    </message>
    <message>
        <source>No positions: swapping words only permutes the outputs</source>
        <translation>Sem posições: trocar palavras de lugar só permuta as saídas</translation>
    </message>
    <message>
        <source>Causal mask: one sentence, four next-token examples</source>
        <translation>Máscara causal: uma frase, quatro exemplos de próximo token</translation>
    </message>
    <message>
        <source>Why divide by √d_k: a mild preference inflated by d_k = 256</source>
        <translation>Por que dividir por √d_k: uma preferência leve inflada por d_k = 256</translation>
    </message>
    <message>
        <source>A longer sentence, read row by row</source>
        <translation>Uma frase mais longa, lida linha por linha</translation>
    </message>
</context>
<context>
    <name>SessionController</name>
    <message>
        <source>&amp;Open…</source>
        <translation>&amp;Abrir…</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Salvar</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>Salvar c&amp;omo…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>Abrir rece&amp;ntes</translation>
    </message>
    <message>
        <source>Could not open the session</source>
        <translation>Não foi possível abrir a sessão</translation>
    </message>
    <message>
        <source>Could not save the session</source>
        <translation>Não foi possível salvar a sessão</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>Sem título</translation>
    </message>
    <message>
        <source>(no recent sessions)</source>
        <translation>(nenhuma sessão recente)</translation>
    </message>
    <message>
        <source>attnviz sessions (*%1);;All files (*)</source>
        <translation>Sessões do attnviz (*%1);;Todos os arquivos (*)</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>Abrir sessão</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>Salvar sessão</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>Alterações não salvas</translation>
    </message>
    <message>
        <source>The session has changes that are not saved. Save them first?</source>
        <translation>A sessão tem alterações que não foram salvas. Deseja salvá-las antes?</translation>
    </message>
</context>
<context>
    <name>StepsPanel</name>
    <message>
        <source>Steps for one query</source>
        <extracomment>Beyond this many keys the table keeps the ones with the largest weights. Value dimensions shown in step ④ (the largest ones when there are more). Entries of the query vector written out beside the query&apos;s name.</extracomment>
        <translation>Passo a passo de uma consulta</translation>
    </message>
    <message>
        <source>The query whose row of attention is worked out below</source>
        <translation>A consulta cuja linha de atenção é calculada abaixo</translation>
    </message>
    <message>
        <source>&amp;Query</source>
        <translation>C&amp;onsulta</translation>
    </message>
    <message>
        <source>① how strongly the query matches each key; ② divided so that the spread of the scores does not grow with d_k; ③ the softmax turns the scores into weights that are positive and add up to 1; ④ the output is the mix of the value vectors in those proportions.</source>
        <translation>① o quanto a consulta combina com cada chave; ② a divisão que impede que a dispersão das pontuações cresça com d_k; ③ o softmax transforma as pontuações em pesos positivos que somam 1; ④ a saída é a mistura dos vetores de valor nessas proporções.</translation>
    </message>
    <message>
        <source>Showing the %1 keys with the largest weights of %2.</source>
        <translation>Mostrando as %1 chaves de maior peso, de um total de %2.</translation>
    </message>
    <message>
        <source>① score q·kⱼ</source>
        <translation>① pontuação q·kⱼ</translation>
    </message>
    <message>
        <source>② scaled ÷ %1</source>
        <translation>② escalada ÷ %1</translation>
    </message>
    <message>
        <source>③ weight aⱼ</source>
        <translation>③ peso aⱼ</translation>
    </message>
    <message>
        <source>④ mix = Σ aⱼ vⱼ, the output of “%1”</source>
        <translation>④ mistura = Σ aⱼ vⱼ, a saída de “%1”</translation>
    </message>
    <message>
        <source>(the %1 largest of %2 components)</source>
        <translation>(os %1 maiores de %2 componentes)</translation>
    </message>
    <message>
        <source>output</source>
        <translation>saída</translation>
    </message>
    <message>
        <source>Output: %1</source>
        <translation>Saída: %1</translation>
    </message>
    <message>
        <source>Every key is masked: the output is zero.</source>
        <translation>Todas as chaves estão mascaradas: a saída é zero.</translation>
    </message>
    <message>
        <source>“%1” reads mostly as %2 (%3).</source>
        <translation>“%1” se lê sobretudo como %2 (%3).</translation>
    </message>
    <message>
        <source>Largest component of the output: %1 = %2.</source>
        <translation>Maior componente da saída: %1 = %2.</translation>
    </message>
</context>
<context>
    <name>StepsTable</name>
    <message>
        <source>masked: the query may not attend to this key (%1)</source>
        <extracomment>Item data role holding the fraction (0…1) of a cell drawn as a bar behind its number.</extracomment>
        <translation>mascarada: a consulta não pode prestar atenção nesta chave (%1)</translation>
    </message>
</context>
<context>
    <name>TokenChecklist</name>
    <message>
        <source>Token %1 “%2”</source>
        <translation>Token %1 “%2”</translation>
    </message>
</context>
<context>
    <name>TokenList</name>
    <message>
        <source>Double-click or F2 to rename; drag to reorder</source>
        <translation>Clique duas vezes ou F2 para renomear; arraste para reordenar</translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Inserir</translation>
    </message>
    <message>
        <source>Add a token after this one (Insert)</source>
        <translation>Inserir um token depois deste (Insert)</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Remover</translation>
    </message>
    <message>
        <source>Remove this token (Delete)</source>
        <translation>Remover este token (Delete)</translation>
    </message>
    <message>
        <source>▲</source>
        <translation>▲</translation>
    </message>
    <message>
        <source>Move this token earlier (Alt+Up)</source>
        <translation>Mover este token para antes (Alt+Up)</translation>
    </message>
    <message>
        <source>▼</source>
        <translation>▼</translation>
    </message>
    <message>
        <source>Move this token later (Alt+Down)</source>
        <translation>Mover este token para depois (Alt+Down)</translation>
    </message>
    <message>
        <source>Token %1: “%2”</source>
        <translation>Token %1: “%2”</translation>
    </message>
    <message>
        <source>new</source>
        <translation>novo</translation>
    </message>
</context>
<context>
    <name>UndoController</name>
    <message>
        <source>Preset</source>
        <extracomment>Changes of the same fields closer together than this (seconds) form one undo step: long enough to span the pauses of a hand-held drag, short enough that two deliberate edits stay apart. Browsing (picking a query or a cell) is not an edit: it is neither an undo step nor a reason to ask &quot;save changes?&quot; on quit.</extracomment>
        <translation>Exemplo</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>Head type</source>
        <translation>Tipo de cabeça</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Semente</translation>
    </message>
    <message>
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>Query vectors</source>
        <translation>Vetores de consulta</translation>
    </message>
    <message>
        <source>Key vectors</source>
        <translation>Vetores de chave</translation>
    </message>
    <message>
        <source>Value vectors</source>
        <translation>Vetores de valor</translation>
    </message>
    <message>
        <source>√d_k scaling</source>
        <translation>Escala por √d_k</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatura</translation>
    </message>
    <message>
        <source>Causal mask</source>
        <translation>Máscara causal</translation>
    </message>
    <message>
        <source>Padding mask</source>
        <translation>Máscara de preenchimento</translation>
    </message>
    <message>
        <source>Document segments</source>
        <translation>Segmentos de documento</translation>
    </message>
    <message>
        <source>Sliding window</source>
        <translation>Janela deslizante</translation>
    </message>
    <message>
        <source>Window direction</source>
        <translation>Direção da janela</translation>
    </message>
    <message>
        <source>Selected query</source>
        <translation>Consulta selecionada</translation>
    </message>
    <message>
        <source>Selected cell</source>
        <translation>Célula selecionada</translation>
    </message>
    <message>
        <source>Matrix</source>
        <translation>Matriz</translation>
    </message>
    <message>
        <source>Colormap</source>
        <translation>Mapa de cores</translation>
    </message>
    <message>
        <source>Automatic levels</source>
        <translation>Níveis automáticos</translation>
    </message>
    <message>
        <source>Levels</source>
        <translation>Níveis</translation>
    </message>
    <message>
        <source>Value labels</source>
        <translation>Rótulos dos valores</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Edição</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Desfazer</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Refazer</translation>
    </message>
</context>
</TS>
