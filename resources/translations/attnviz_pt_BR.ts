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
    <name>BackendChoice</name>
    <message>
        <source>NumPy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>torch (CPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA (GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>torch is not installed (pip install &quot;attnviz[torch]&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no CUDA device (torch %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>looking for a GPU…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not installed</source>
        <translation type="unfinished">não instalado</translation>
    </message>
    <message>
        <source>no device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exact NumPy on every CPU core</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>torch on the CPU (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>torch on the GPU: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA when a GPU is present, else NumPy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the map is computed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precision of q and k (bfloat16 and float16 on a GPU)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BackgroundTopicPanel</name>
    <message>
        <source>Computing…</source>
        <extracomment>Results kept for instant redraws.</extracomment>
        <translation type="unfinished">Calculando…</translation>
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
    <name>CardEditor</name>
    <message>
        <source>Layers</source>
        <extracomment>(field, ModelCard limit key, minimum) of the spin boxes, in grid order.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head_dim</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MLA latent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MLA RoPE dims</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers that keep a KV cache (fewer: a hybrid)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MLA: width of the latent cached per layer (0: no MLA)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MLA: width of the RoPE key cached beside the latent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens a sliding-window layer keeps (0: no window)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention layers that keep only the window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key/value heads: as many as the query heads (MHA), fewer (GQA) or one (MQA)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameter count, e.g. 8.03e9, for the weights&apos; share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The parameter count must be a number, e.g. 8.03e9</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ClockDial</name>
    <message>
        <source>RoPE clocks</source>
        <extracomment>At most this many clocks are drawn; more pairs show an evenly spaced subset.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pair %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>θ = %1 rad per token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wavelength 2π/θ = %1 tokens (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query at m = %1: %2°</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key at n = %1: %2°</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>between them: %1° clockwise from key to query</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No frequencies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query at m = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key at n = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>m − n = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 pairs, evenly spaced, fast → slow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 pairs, fast → slow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hover a clock for its numbers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>under each: wavelength in tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>under each: pair, wavelength in tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 dimension pairs; query at position %2, key at position %3</source>
        <translation type="unfinished"></translation>
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
        <source>&amp;d_k</source>
        <translation type="unfinished">&amp;d_k</translation>
    </message>
    <message>
        <source>Width of the queries and keys: the slider stops at powers of two, the box takes any whole number</source>
        <translation type="unfinished"></translation>
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
        <source>Standard deviation of the scores S over the pairs the softmax sees. Scores 20 apart give weights in the ratio e⁻²⁰ ≈ 2·10⁻⁹: a hard argmax, and a gradient of zero.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rotate Q and K by position (RoPE)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each pair of dimensions of a query or key turns by its position times its own speed (base and scaling from the positions panel): the scores then depend on where the tokens are, not only on what they are</source>
        <translation type="unfinished"></translation>
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
        <source>A: 0 to 1, as probabilities are; S and O: their range. Off: fixed below</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stretch A&apos;s colours to its range</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off: a weight&apos;s colour means the same probability in every picture, so the matrices with and without √d_k compare. On: small differences show.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spread of the scores: σ = %1</source>
        <translation type="unfinished"></translation>
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
        <source>÷ √d_k = %1 — a fixed temperature T = √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with T = %1: ÷ %2 in all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No divisor: the spread of the scores grows like √d_k = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>÷ T = %1</source>
        <translation type="unfinished"></translation>
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
        <source>projections X·W (heads panel)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a real model&apos;s head (layers panel)</source>
        <translation type="unfinished"></translation>
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
        <source>Swap the word order</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“%1” ⇄ “%2”: without positions the rows and columns only trade places</source>
        <translation type="unfinished"></translation>
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
    <name>EmbeddingPanel</name>
    <message>
        <source>update count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gradient row norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embedding table</source>
        <extracomment>Bins per decade of rank on the rank plot.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, the embedding table: a lookup is a one-hot product, so a batch&apos;s gradient reaches only the rows of the tokens in it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every row of the table, most frequent token first, read like text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rows of the table: one per token id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens drawn for one training batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zipf exponent: 1 is like natural text, 0 uniform</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another draw of the batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of each row: d_model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tied input/output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The output projection reuses the embedding table</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What colours each row of the strip</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zipf s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished">Semente</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Colour by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>frequency rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens in the batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this batch (mean per row)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zipf law: tokens × p(rank)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens touch %2 of %3 rows; %4 rows (%5 %) get no gradient.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Table %1 × %2 = %3 parameters (%4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tied with the output projection: %1 in all, saving %2 (half).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With its own output projection: %1 in all; tying would save %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>row %1 (rank %2): %3 in the batch, gradient norm %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rows %1–%2: %3 tokens, %4 of %5 rows touched</source>
        <translation type="unfinished"></translation>
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
    <name>GradientPanel</name>
    <message>
        <source>one output entry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>random (seeded)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the example&apos;s own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient</source>
        <extracomment>Decimals written in the cells (the chapter quotes dQ to three). The lowest power of ten the saturation plot draws: smaller sizes (a double underflows near 1e−308; the sizes are exact beyond) lie on the floor. pyqtgraph&apos;s log axes stop at 1e−307.6. The matrices of the chain and the row of the figure each sits in.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, backward pass: how the loss&apos;s gradient dO flows back through A = softmax(QKᵀ/√d_k) to Q, K and V.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where the upstream gradient dO = ∂L/∂O comes from</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the random dO (normal, mean 0, variance 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The loss is this value dimension of the selected query&apos;s output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The query whose softmax row the Jacobian shows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>plot vs d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>plot vs T</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The saturation plot: the Jacobian&apos;s size against d_k or the temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Jacobian&apos;s size: its largest entry or its Frobenius norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dO:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>entry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query</source>
        <translation type="unfinished">consulta</translation>
    </message>
    <message>
        <source>Check with finite differences</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dO: L = O[%1, %2]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dO ~ N(0, 1), seed %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dO: the example&apos;s own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>J = diag(a) − a aᵀ, query “%1”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>with the √d_k divisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>without it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>temperature T</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>largest |J_ij|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>‖J‖ Frobenius</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dS rows sum to 0 (largest |Σ| %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens: the matrices are drawn for up to %2 (exports have them)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Jacobian of “%1”: largest entry %2, Frobenius norm %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the d_k curve is drawn for up to %1 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>typed vectors: the d_k curve is the typical size for random q, k (the dot is this row)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RoPE on: Q and K are the rotated vectors; dQ, dK are gradients with respect to them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare dQ, dK, dV with central differences of the loss (ε = 1e−6)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Too large to check here: try fewer tokens or a smaller d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The example changed while checking: check again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Largest error against finite differences: dQ %1 · dK %2 · dV %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HeadGrid</name>
    <message>
        <source>KV head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rows: queries · columns: keys · A from 0 to 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>masked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head %1 · “%2” → key “%3”: A = %4</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HeadsPanel</name>
    <message>
        <source>Q = X·W_Q</source>
        <extracomment>Rows of the FLOP table: a FlopCount field and what it counts.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>K = X·W_K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>V = X·W_V</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S = Q·Kᵀ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A·V</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>concat·W^O</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLOPs in all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>score entries (softmax)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache, numbers per token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MHA: one KV head per query head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MQA: all %1 query heads share one KV head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GQA: %1 query heads per KV head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, multi-head: X·W gives each head its Q, K, V; the heads side by side, times W^O, give the output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shapes and FLOPs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use learned projections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make Q, K and V from embeddings X and matrices W</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query heads h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key/value heads: h = MHA, fewer = GQA, 1 = MQA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of X</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of one head (d_k)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;KV heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_&amp;model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_h&amp;ead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Array</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Columns: one head of width h·d_head; h heads of width d_head with a KV head each (MHA); the same heads sharing n_kv_heads KV heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q, K and V are typed or come from a synthetic head: one head, no X and no W. Use learned projections to split a model into heads.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FLOPs need the projections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 × %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KV</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Product</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One head: n = %1, d_k = %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 heads × %2 = 1 head × %3: %4 FLOPs either way (%1× the scores).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> KV cache: %1 numbers per token, not %2 (÷%3).</source>
        <translation type="unfinished"></translation>
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
        <extracomment>Automatic levels of the weights: a probability is between 0 and 1.</extracomment>
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
    <message>
        <source>entropy of the row of “%1” = %2 nats   (0: one key takes all; ln %3 = %4: spread evenly)</source>
        <translation type="unfinished"></translation>
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
    <name>LayersPanel</name>
    <message>
        <source>Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A local Hugging Face model folder (safetensors)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Sentence</source>
        <translation type="unfinished">&amp;Frase</translation>
    </message>
    <message>
        <source>Runs through the model once; its tokenizer makes the tokens (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The query token (the row)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The key token it looks at (the column)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Colour by the link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fill each head with its weight from the query to the key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the &amp;strongest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The head shown is not the model&apos;s (a what-if, or another head source). Click a head to show the model&apos;s again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder (File → Open Model… or attnviz --model DIR) to see every head of every layer here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2 · %3 layers × %4 heads (%5 KV) · d_head %6 · %7 tokens as the model sees them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; special: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shown: layer %1, head %2 (KV head %3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>L%1·h%2 %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> “%1” → “%2”: A = %3 here; strongest %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a link first: a query token and a key token.</source>
        <translation type="unfinished"></translation>
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
        <extracomment>Bump when the set or arrangement of docks changes, so an old saved layout is ignored.</extracomment>
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
    <message>
        <source>A view could not follow the last change: %1</source>
        <extracomment>PySide6 builds that must not run on CPython &lt; 3.12. 6.12.0 returns None/True from void methods and Signal.emit without taking a reference; on 3.10/3.11 the counts reach zero after a few thousand calls and the interpreter aborts (&quot;bool_dealloc&quot;). pyproject.toml excludes it; this check covers environments assembled by hand.</extracomment>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MaskBox</name>
    <message>
        <source>Masks</source>
        <extracomment>Up to this many tokens the padding flags are also shown as one check box per token. Training examples listed at most (a long causal sentence has n − 1 of them). Hidden ranges named at most in the summary under the range editor.</extracomment>
        <translation>Máscaras</translation>
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
        <source>&amp;Causal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>each token sees only itself and earlier ones</source>
        <translation type="unfinished"></translation>
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
        <source>keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide these keys from every query</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show</source>
        <translation type="unfinished">Mostrar</translation>
    </message>
    <message>
        <source>Let every query see these keys again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No key is hidden.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 keys hidden: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One causal pass trains %1 next-token predictions at once:</source>
        <translation type="unfinished"></translation>
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
    <name>MatrixView</name>
    <message>
        <source>masked: this key is hidden from this query</source>
        <extracomment>Colour stops from −m to +m (blue for negative, red for positive, as RdBu reversed). On a dark panel the neutral colour is dark too (a shade lighter than the panel, so a row of zeros still shows as cells), and magnitude brightens both ways. Labels longer than this are shortened (the tooltip gives them whole). Up to this many cells along a side, cells are sized for their numbers. Cells never show fewer decimals than this (unless fewer were asked for). The narrowest a numbered column may become (in pixels) before the layout scrolls.</extracomment>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryFigure</name>
    <message>
        <source>all %1 layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>context n (tokens)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache %1 of %2; weights unknown (no parameter count)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache %1 + weights %2 = %3 of %4 (%5 %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every context fits: the windows cap the cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>does not fit: the weights alone fill the GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fits up to %1 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fits up to %1 tokens per sequence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weights %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>latent %1 + %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 KV heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2): %3 bytes per token, %4 bytes at the context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1× the card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV cache at %1 tokens by attention design</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>If all %1 layers had attention (the card: %2 of them): %3 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Without the %1-token window: %3 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S of one head, one layer: n²</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tiled kernel (FlashAttention): O(n)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 query heads, MLA latent %2 + %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 query heads, %2 KV heads (%3), head_dim %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 layers, %2 with attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 with a %2-token window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 per token (%2 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S at %1 tokens: %2 entries, %3 in %4-bit, per head per layer</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <source>bf16: 2 bytes per element</source>
        <extracomment>The GPUs offered in the picker, in GB (any other size can be typed).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fp16: 2 bytes per element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fp8: 1 byte per element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fp32: 4 bytes per element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>int4: half a byte per element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV-cache memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, the KV cache and the price of O(n²): every token keeps its keys and values in every attention layer; GQA, MLA, windows and hybrids shrink them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A real model&apos;s attention shape, or your own card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU memory in GB (10⁹ bytes): pick one or type a size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From config.json…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read layers, heads, KV heads, windows and MLA from a Hugging Face config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit the card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per sequence held in the cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequences served at once, each with its own cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Element type of the KV cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Element type of the weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Custom: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU memory must be a number of GB, e.g. 80 or 141</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read a Hugging Face config.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model configs (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ModelController</name>
    <message>
        <source>Checking the folder…</source>
        <extracomment>What the progress dialog says at each stage of :func:`attnviz.core.hf_capture.load_model`.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting transformers and torch…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the tokenizer…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading the weights…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running the sentence through the model…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>OverviewPanel</name>
    <message>
        <source>content</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>previous token</source>
        <translation type="unfinished">token anterior</translation>
    </message>
    <message>
        <source>distance decay</source>
        <translation type="unfinished">decai com a distância</translation>
    </message>
    <message>
        <source>random</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Equal words attend to each other: passages of 1,024 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each query attends to the token before it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weights fall with the distance |i − j|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Random q and k: an untrained head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean of the block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max of the block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Long sequence</source>
        <extracomment>Decades of weight the log colour scale spans below the largest one shown.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, the price of n²: every weight of a long sequence, mapped without the n×n matrix. Drag a rectangle or scroll to zoom down to the exact weights.</source>
        <extracomment>None: compute in place when the panel is its own window (an offscreen export).</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens in the sequence (n)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of queries and keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which synthetic head makes q and k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the synthetic head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cells per side of the map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What one map cell shows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Causal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A query sees only earlier keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>÷ √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Divide the scores by √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log colours</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Colour by log₁₀ of the weight: small weights stay visible</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Whole map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom out to the whole sequence (Home)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>n</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d_k</source>
        <translation type="unfinished">d_k</translation>
    </message>
    <message>
        <source>Head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished">Semente</translation>
    </message>
    <message>
        <source>Cells</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cell</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backend</source>
        <translation type="unfinished">Backend</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Computing the map… %1%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not computed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not enough memory: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Map ready in %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Map: %1, %2 tokens in %3 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>log₁₀ weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query (token)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>key (token)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>mean</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens, %2 head: each cell the %3 of a %4 × %5 block of weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(computing…)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>queries %1–%2 × keys %3–%4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens, %2 head; %3: the exact weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tokens, %2 head; %3: each cell the %4 of a %5 × %6 block</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Working memory ≈ %1; the n×n matrix would take %2 in float32 · %3 scores, %4 multiply-adds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>query %1, key %2: weight %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>queries %1–%2, keys %3–%4: %5 weight %6</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PositionsPanel</name>
    <message>
        <source>plain RoPE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>position interpolation (linear)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NTK-aware</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dynamic NTK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Llama 3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>YaRN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>slowed by the factor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>blended</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Positions (RoPE)</source>
        <extracomment>How the pairs of the chosen method are marked on the extension plot (Okabe–Ito index). Milliseconds between frames of the position animation.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, positions: each pair of dimensions turns like a clock hand, m·θ per position; the score sees only the angle between query and key.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Relative position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Context extension</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings of a real model or of a small teaching head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rotated width of one head: head_dim / 2 clock hands</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>θ_i = base^(−2i/head_dim): a larger base, slower hands</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How the frequencies are rescaled to reach a longer context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many times longer the new context is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The context the model was trained at</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Llama 3: wavelengths above original/low are slowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Llama 3: wavelengths below original/high are kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>YaRN: pairs turning more often than this are kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>YaRN: pairs turning less often than this are slowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Factor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trained at</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>head_dim</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>low</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>high</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>β fast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>β slow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query position &amp;m</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drag to turn every hand: fast pairs spin, slow ones creep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the query one position at a time (Space)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Position of the key whose hands are drawn short</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>shift </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The relative curves are drawn again with both positions shifted by this</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>m − n (query position minus key position)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>q_m · k_n</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dimension pair i (fast → slow)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wavelength (tokens)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exact value: %1</source>
        <translation type="unfinished">Valor exato: %1</translation>
    </message>
    <message>
        <source>key at n = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dashed: the original context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 pairs, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>context %1 → %2 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attention factor %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>m − n = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Preset</name>
    <message>
        <source>Backward pass of one head: the reference run</source>
        <translation>Retropropagação numa cabeça: a execução de referência</translation>
    </message>
    <message>
        <source>The same “banco”, now money: Fui ao banco sacar dinheiro</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give “sacar” and “dinheiro” the value [1, 0]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>money</source>
        <translation type="unfinished"></translation>
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
        <source>A longer Portuguese sentence, read row by row</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Causal mask: one sentence, four next-token examples</source>
        <translation>Máscara causal: uma frase, quatro exemplos de próximo token</translation>
    </message>
    <message>
        <source>Two heads over 2-D embeddings: drag a word</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eight heads sharing two KV heads: “o banco da praça…”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why divide by √d_k: a mild preference inflated by d_k = 256</source>
        <translation>Por que dividir por √d_k: uma preferência leve inflada por d_k = 256</translation>
    </message>
    <message>
        <source>A longer sentence, read row by row</source>
        <translation>Uma frase mais longa, lida linha por linha</translation>
    </message>
    <message>
        <source>RoPE as clocks: a small teaching head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Llama 3.1: base 500,000, Llama 3 scaling ×8 from 8,192 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Qwen2.5: base 1,000,000, YaRN ×4 from 32,768 tokens</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ProjectionEditor</name>
    <message>
        <source>Embeddings X and matrices W</source>
        <extracomment>Rows and columns of a matrix shown; larger ones show their top-left corner. Fields whose change redraws the tables (the slider path touches none of them). The embeddings&apos; arrows: green, apart from the editor&apos;s blue queries and orange keys.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use learned projections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make Q, K and V from embeddings X and matrices W</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Draw from the seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forget the typed numbers of this matrix</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q, K and V do not come from X and W now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>typed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>all drawn from seed %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is %2 × %3, %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>typed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>drawn from seed %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Showing the first %1 rows and columns.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ReachPanel</name>
    <message>
        <source>RNN (tanh)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LSTM cell path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient reach</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, why recurrent networks forget: each step back multiplies the gradient by a factor below 1; attention reaches every token in one step.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Length &amp;T</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens in the sequence: the gradient runs back T − 1 steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seed </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another draw of the random weights and inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>weights × </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale of the recurrent weights: 1 is the chapter&apos;s setting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>score spread </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention: random content scores of this spread (0: all tokens alike)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>steps back from the last token (t)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>gradient (last token = 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 per step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chapter: %1 at %2 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient reaching the first of T = %1 tokens: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>t = %1: %2</source>
        <translation type="unfinished"></translation>
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
        <extracomment>Beyond this many keys the table keeps the ones with the largest weights. Value dimensions shown in step ④ (the largest ones when there are more). Entries of the query vector written out beside the query&apos;s name. Type sizes relative to the interface font: the steps are read from the back of a room, but in large-font mode the interface font is already 1.5 times larger. In large-font mode only this part of the extra size is kept (1.3 → 1.15).</extracomment>
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
        <source>⑤ gradient dq</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⑤ the way back: the gradient of the loss reaching the query of “%1”, dq = Σⱼ dSᵢⱼ kⱼ / √d_k (the gradient panel says where the loss comes from)</source>
        <translation type="unfinished"></translation>
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
        <source>④ shows the %1 largest of %2 output components.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>④ output Σ aⱼ vⱼ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>④ the output of “%1”: the values mixed in the proportions of ③</source>
        <translation type="unfinished"></translation>
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
    <name>TilesPanel</name>
    <message>
        <source>FlashAttention</source>
        <extracomment>Milliseconds between tiles while playing. Colours of the Q tile (rows) and the K/V tile (keys), Okabe–Ito.</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chapter 003, FlashAttention: the scores are computed one tile at a time; each query row keeps only a running max m, a running sum ℓ and its output so far, rescaled whenever m grows. ←/→ step, Home/End, Space plays.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Numbers held at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens of the small sequence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Width of q, k and v</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query rows per tile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys (and values) per tile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Causal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tiles above the diagonal are skipped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>n</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q tile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>K/V tile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>First tile (Home)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous tile (←)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next tile (→)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last tile (End)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The tile shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S = QKᵀ/√d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>m</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ℓ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>O so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>O final</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tile %1 of %2: query rows %3–%4 × keys %5–%6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skipped: the causal mask hides every cell of it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>m ← max(m, row max of the tile); ℓ and O rescaled by e^(m_old − m)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All %1 rows final: the tiled output equals the dense attention() output (largest difference %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 rows final.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>n = %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>held by the tiles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>n×n matrix</source>
        <translation type="unfinished"></translation>
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
    <name>TokenSlider</name>
    <message>
        <source>Exact value: %1 tokens; type 131072, 128k or 1M</source>
        <extracomment>The slider&apos;s stops.</extracomment>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>UndoController</name>
    <message>
        <source>Preset</source>
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
        <source>Sequence length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Semente</translation>
    </message>
    <message>
        <source>Map cells</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Map cell value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale by √d_k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log colour scale</source>
        <translation type="unfinished"></translation>
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
        <source>Levels of A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Upstream gradient</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient component</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RoPE on the heatmap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RoPE scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RoPE base</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scaling factor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Position offset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation type="unfinished"></translation>
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
    <message>
        <source>Vocabulary size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens in the batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zipf exponent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Table width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tied embeddings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Strip colour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model width d_model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Number of heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Embeddings X</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>W_Q</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>W_K</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>W_V</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>W^O</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Head shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sentence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model head</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Context length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cache dtype</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weights dtype</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MLA latent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameter count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weight scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Score spread</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tiles: tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tiles: width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query tile size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key tile size</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
