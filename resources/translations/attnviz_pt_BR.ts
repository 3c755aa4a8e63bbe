<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR" sourcelanguage="en">
<context>
    <name>AblationMapView</name>
    <message>
        <source>L%1</source>
        <translation>C%1</translation>
    </message>
    <message>
        <source>H%1</source>
        <translation>H%1</translation>
    </message>
    <message>
        <source>layer %1, head %2 zero-ablated: it copies %3 of the %4 copyable tokens (%5; %6 with nothing off, Δ %7); %8</source>
        <translation>camada %1, cabeça %2 zerada: ele copia %3 dos %4 tokens copiáveis (%5; %6 sem nada desligado, Δ %7); %8</translation>
    </message>
    <message>
        <source>layer %1, head %2: not softmax attention, no head to switch off</source>
        <translation>camada %1, cabeça %2: não é atenção softmax, não há cabeça para desligar</translation>
    </message>
    <message>
        <source>click to switch it on again</source>
        <translation>clique para religá-la</translation>
    </message>
    <message>
        <source>click to switch it off</source>
        <translation>clique para desligá-la</translation>
    </message>
    <message>
        <source>layer %1, head %2 zero-ablated: Δ log p(“%3”) = %4; p %5 → %6; %7</source>
        <translation>camada %1, cabeça %2 zerada: Δ log p(“%3”) = %4; p %5 → %6; %7</translation>
    </message>
    <message>
        <source>; it copies %1 of the %2 copyable tokens (%3)</source>
        <translation>; ele copia %1 dos %2 tokens copiáveis (%3)</translation>
    </message>
</context>
<context>
    <name>AboutDialog</name>
    <message>
        <source>installed, not loaded</source>
        <extracomment>The notices of every third-party component attnviz runs on or ships.</extracomment>
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
        <source>It runs on Qt (LGPL-3.0) through PySide6, numpy, pyqtgraph and superqt; Licences… lists every third-party component, its licence and how to replace the Qt libraries.</source>
        <translation>Roda sobre o Qt (LGPL-3.0) via PySide6, numpy, pyqtgraph e superqt; Licenças… lista cada componente de terceiros, sua licença e como substituir as bibliotecas do Qt.</translation>
    </message>
    <message>
        <source>About attnviz</source>
        <translation>Sobre o attnviz</translation>
    </message>
    <message>
        <source>&amp;Licences…</source>
        <translation>&amp;Licenças…</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Sobre o &amp;Qt</translation>
    </message>
    <message>
        <source>The third-party notices are missing from this installation (%1).</source>
        <translation>Os avisos de terceiros faltam nesta instalação (%1).</translation>
    </message>
    <message>
        <source>Third-party licences</source>
        <translation>Licenças de terceiros</translation>
    </message>
</context>
<context>
    <name>AnimationDialog</name>
    <message>
        <source>Export Animation</source>
        <translation>Exportar animação</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>E&amp;xportar</translation>
    </message>
    <message>
        <source>The panel drawn in every frame</source>
        <translation>O painel desenhado em cada quadro</translation>
    </message>
    <message>
        <source>&amp;Panel</source>
        <translation>&amp;Painel</translation>
    </message>
    <message>
        <source>The number that moves from the first frame to the last</source>
        <translation>O número que varia do primeiro ao último quadro</translation>
    </message>
    <message>
        <source>&amp;Field</source>
        <translation>&amp;Campo</translation>
    </message>
    <message>
        <source>The field&apos;s value in the first frame</source>
        <translation>O valor do campo no primeiro quadro</translation>
    </message>
    <message>
        <source>The field&apos;s value in the last frame</source>
        <translation>O valor do campo no último quadro</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Início</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>&amp;Fim</translation>
    </message>
    <message>
        <source>&amp;Logarithmic steps</source>
        <translation>Passos &amp;logarítmicos</translation>
    </message>
    <message>
        <source>Each frame multiplies the value by the same factor (both ends above 0); an integer field is then rounded</source>
        <translation>Cada quadro multiplica o valor pelo mesmo fator (as duas pontas acima de 0); um campo inteiro é então arredondado</translation>
    </message>
    <message>
        <source>How many pictures the animation has</source>
        <translation>Quantas imagens a animação tem</translation>
    </message>
    <message>
        <source>F&amp;rames</source>
        <translation>&amp;Quadros</translation>
    </message>
    <message>
        <source> per second</source>
        <translation> por segundo</translation>
    </message>
    <message>
        <source>Frames shown per second (GIF times them in hundredths of a second)</source>
        <translation>Quadros mostrados por segundo (o GIF os cronometra em centésimos de segundo)</translation>
    </message>
    <message>
        <source>Fram&amp;e rate</source>
        <translation>&amp;Taxa de quadros</translation>
    </message>
    <message>
        <source>GIF (plays everywhere, 256 colours a frame)</source>
        <translation>GIF (abre em qualquer lugar, 256 cores por quadro)</translation>
    </message>
    <message>
        <source>WebP, lossless (small; keeps transparency)</source>
        <translation>WebP sem perdas (pequeno; mantém a transparência)</translation>
    </message>
    <message>
        <source>APNG, lossless (keeps transparency)</source>
        <translation>APNG sem perdas (mantém a transparência)</translation>
    </message>
    <message>
        <source>MP4 video, H.264</source>
        <translation>Vídeo MP4, H.264</translation>
    </message>
    <message>
        <source>MP4 video (needs the video extra: pip install &apos;attnviz[video]&apos;)</source>
        <translation>Vídeo MP4 (precisa do extra video: pip install &apos;attnviz[video]&apos;)</translation>
    </message>
    <message>
        <source>F&amp;ormat</source>
        <translation>F&amp;ormato</translation>
    </message>
    <message>
        <source>Si&amp;ze</source>
        <translation>Tama&amp;nho</translation>
    </message>
    <message>
        <source>T&amp;heme</source>
        <translation>Te&amp;ma</translation>
    </message>
    <message>
        <source>Tr&amp;ansparent background</source>
        <translation>Fundo tr&amp;ansparente</translation>
    </message>
    <message>
        <source>WebP and APNG only</source>
        <translation>Só WebP e APNG</translation>
    </message>
    <message>
        <source>the file to write</source>
        <translation>o arquivo a gravar</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>P&amp;rocurar…</translation>
    </message>
    <message>
        <source>F&amp;ile</source>
        <translation>Arqui&amp;vo</translation>
    </message>
    <message>
        <source>This panel has no numeric field to animate.</source>
        <translation>Este painel não tem campo numérico para animar.</translation>
    </message>
    <message>
        <source>Cannot export</source>
        <translation>Não é possível exportar</translation>
    </message>
    <message>
        <source>These frames need %1 GiB of memory and %2 GiB are free: use fewer frames or a smaller size.</source>
        <translation>Estes quadros precisam de %1 GiB de memória e há %2 GiB livres: use menos quadros ou um tamanho menor.</translation>
    </message>
    <message>
        <source>The attention map of this animation takes %1 on this machine&apos;s CPU; export anyway?</source>
        <translation>O mapa de atenção desta animação leva %1 na CPU desta máquina; exportar mesmo assim?</translation>
    </message>
    <message>
        <source>The %1 attention maps of this animation take %2 on this machine&apos;s CPU; export anyway?</source>
        <translation>Os %1 mapas de atenção desta animação levam %2 na CPU desta máquina; exportar mesmo assim?</translation>
    </message>
    <message>
        <source>about %1 s</source>
        <translation>cerca de %1 s</translation>
    </message>
    <message>
        <source>about %1 min</source>
        <translation>cerca de %1 min</translation>
    </message>
    <message>
        <source>Drawing the frames…</source>
        <translation>Desenhando os quadros…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>Computing map %1 of %2…</source>
        <translation>Calculando o mapa %1 de %2…</translation>
    </message>
    <message>
        <source>Drawing frame %1 of %2…</source>
        <translation>Desenhando o quadro %1 de %2…</translation>
    </message>
    <message>
        <source>Writing frame %1 of %2…</source>
        <translation>Gravando o quadro %1 de %2…</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>Gravado: %1.</translation>
    </message>
    <message>
        <source>Cancelled: nothing was written.</source>
        <translation>Cancelado: nada foi gravado.</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Falha ao exportar</translation>
    </message>
</context>
<context>
    <name>AttributionPanel</name>
    <message>
        <source>Split by rotary pair</source>
        <extracomment>At most this many keys are drawn (the largest scores, in their order); the export writes them all. Tabs of the figure. How often the note of a map on a worker shows its progress (ms).</extracomment>
        <translation>Divisão por par rotativo</translation>
    </message>
    <message>
        <source>Query–key map</source>
        <translation>Mapa de consultas e chaves</translation>
    </message>
    <message>
        <source>colour by position</source>
        <translation>cor pela posição</translation>
    </message>
    <message>
        <source>colour by token</source>
        <translation>cor pelo token</translation>
    </message>
    <message>
        <source>This head turns no pair (RoPE off, or a model without it): the columns are pairs of dimensions as they are, and no clock turns them.</source>
        <translation>Esta cabeça não gira nenhum par (RoPE desligado, ou um modelo sem ele): as colunas são pares de dimensões tais como estão, e nenhum relógio os gira.</translation>
    </message>
    <message>
        <source>PCA (a plane through the origin)</source>
        <translation>PCA (um plano pela origem)</translation>
    </message>
    <message>
        <source>UMAP (neighbours by angle)</source>
        <translation>UMAP (vizinhos pelo ângulo)</translation>
    </message>
    <message>
        <source>UMAP is not installed: %1</source>
        <translation>O UMAP não está instalado: %1</translation>
    </message>
    <message>
        <source>colour by sentence</source>
        <translation>cor por frase</translation>
    </message>
    <message>
        <source>More sentences, one a line: run through the model shown, drawn with its text</source>
        <translation>Mais frases, uma por linha: passam pelo modelo mostrado e são desenhadas com o texto dele</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>Projetar</translation>
    </message>
    <message>
        <source>Run these sentences through the model and draw them</source>
        <translation>Passar estas frases pelo modelo e desenhá-las</translation>
    </message>
    <message>
        <source>Running %1 more sentences through the model, then projecting…</source>
        <translation>Passando mais %1 frases pelo modelo, depois projetando…</translation>
    </message>
    <message>
        <source>Projecting %1 queries and keys…</source>
        <translation>Projetando %1 queries e keys…</translation>
    </message>
    <message>
        <source>UMAP takes seconds (the first time, more: it compiles).</source>
        <translation>O UMAP leva segundos (na primeira vez, mais: ele compila).</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1 (%2 %)</translation>
    </message>
    <message>
        <source>“%1”: its score per pair, tokens per turn fast → slow</source>
        <translation>“%1”: sua pontuação por par, tokens por volta, do rápido ao lento</translation>
    </message>
    <message>
        <source>“%1” may see no key.</source>
        <translation>“%1” não pode ver nenhuma chave.</translation>
    </message>
    <message>
        <source>“%1” reads “%2” most (weight %3, score %4): %5 % of that score&apos;s terms, by size, lie in the fastest half of the pairs.</source>
        <translation>“%1” lê sobretudo “%2” (peso %3, pontuação %4): %5 % dos termos dessa pontuação, em tamanho, estão na metade mais rápida dos pares.</translation>
    </message>
    <message>
        <source>Drawn: the %1 keys of largest score of %2.</source>
        <translation>Desenhadas: as %1 chaves de maior pontuação entre %2.</translation>
    </message>
    <message>
        <source>The text shown and %1 more sentences: %2 queries and %2 keys.</source>
        <translation>O texto mostrado e mais %1 frases: %2 queries e %2 keys.</translation>
    </message>
    <message>
        <source>UMAP (seed %1) keeps which rows point alike (cosine neighbours), the keys moved to the queries&apos; mean (no query&apos;s weights change); distances here are not dot products. Ringed: the query of “%2” and the key it reads most.</source>
        <translation>O UMAP (semente %1) guarda quais linhas apontam parecido (vizinhos pelo cosseno), as keys deslocadas para a média das queries (os pesos de nenhuma query mudam); aqui as distâncias não são produtos escalares. Com anel: a query de “%2” e a key que ela mais lê.</translation>
    </message>
    <message>
        <source>The plane holds %1 % of the rows&apos; squared length. The arrow is the query of “%2”: a key&apos;s score with it is how far the key reaches along the arrow.</source>
        <translation>O plano guarda %1 % do comprimento ao quadrado das linhas. A seta é a consulta de “%2”: a pontuação de uma chave com ela é o quanto a chave avança ao longo da seta.</translation>
    </message>
    <message>
        <source>It reaches furthest to “%1”: q·k = %2 in the plane, %3 in the head.</source>
        <translation>Quem mais avança é “%1”: q·k = %2 no plano, %3 na cabeça.</translation>
    </message>
    <message>
        <source>Why: q·k = |q| |k| cos = %1 × %2 × %3 (the angle between them %4°).</source>
        <translation>Por quê: q·k = |q| |k| cos = %1 × %2 × %3 (o ângulo entre elas, %4°).</translation>
    </message>
    <message>
        <source>key “%1”: score %2, the sum of its %3 terms</source>
        <translation>chave “%1”: pontuação %2, a soma dos seus %3 termos</translation>
    </message>
    <message>
        <source>key “%1”, dimensions %2 (period %3 tokens): term %4 of score %5</source>
        <translation>chave “%1”, dimensões %2 (período de %3 tokens): termo %4 da pontuação %5</translation>
    </message>
</context>
<context>
    <name>BackendChoice</name>
    <message>
        <source>NumPy</source>
        <translation>NumPy</translation>
    </message>
    <message>
        <source>torch (CPU)</source>
        <translation>torch (CPU)</translation>
    </message>
    <message>
        <source>CUDA (GPU)</source>
        <translation>CUDA (GPU)</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>auto</translation>
    </message>
    <message>
        <source>torch is not installed (its CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu)</source>
        <translation>o torch não está instalado (a versão para CPU: pip install torch --index-url https://download.pytorch.org/whl/cpu)</translation>
    </message>
    <message>
        <source>no CUDA device (torch %1)</source>
        <translation>nenhum dispositivo CUDA (torch %1)</translation>
    </message>
    <message>
        <source>looking for a GPU…</source>
        <translation>procurando uma GPU…</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>não instalado</translation>
    </message>
    <message>
        <source>no device</source>
        <translation>sem dispositivo</translation>
    </message>
    <message>
        <source>checking…</source>
        <translation>verificando…</translation>
    </message>
    <message>
        <source>Exact NumPy on every CPU core</source>
        <translation>NumPy exato em todos os núcleos da CPU</translation>
    </message>
    <message>
        <source>torch on the CPU (%1)</source>
        <translation>torch na CPU (%1)</translation>
    </message>
    <message>
        <source>torch on the GPU: %1</source>
        <translation>torch na GPU: %1</translation>
    </message>
    <message>
        <source>CUDA when a GPU is present, else NumPy</source>
        <translation>CUDA quando há uma GPU; senão, NumPy</translation>
    </message>
    <message>
        <source>Where the map is computed</source>
        <translation>Onde o mapa é calculado</translation>
    </message>
    <message>
        <source>Precision of q and k (bfloat16 and float16 on a GPU)</source>
        <translation>Precisão de q e k (bfloat16 e float16 numa GPU)</translation>
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
        <extracomment>(field, ModelCard limit key, minimum) of the spin boxes, in grid order. Grid (row, column) of each spin box: four pairs a row, the last two beside the KV heads and the parameter count.</extracomment>
        <translation>Camadas</translation>
    </message>
    <message>
        <source>Query heads</source>
        <translation>Cabeças Q</translation>
    </message>
    <message>
        <source>head_dim</source>
        <translation>head_dim</translation>
    </message>
    <message>
        <source>With attention</source>
        <translation>Com atenção</translation>
    </message>
    <message>
        <source>MLA latent</source>
        <translation>Latente MLA</translation>
    </message>
    <message>
        <source>MLA RoPE dims</source>
        <translation>Dim. RoPE MLA</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>Janela</translation>
    </message>
    <message>
        <source>Window layers</source>
        <translation>Camadas c/ janela</translation>
    </message>
    <message>
        <source>State per layer</source>
        <translation>Estado por camada</translation>
    </message>
    <message>
        <source>Conv per layer</source>
        <translation>Conv. por camada</translation>
    </message>
    <message>
        <source>Layers that keep a KV cache (fewer: a hybrid)</source>
        <translation>Camadas que mantêm um cache KV (menos: um híbrido)</translation>
    </message>
    <message>
        <source>MLA: width of the latent cached per layer (0: no MLA)</source>
        <translation>MLA: largura do latente guardado no cache por camada (0: sem MLA)</translation>
    </message>
    <message>
        <source>MLA: width of the RoPE key cached beside the latent</source>
        <translation>MLA: largura da chave RoPE guardada no cache ao lado do latente</translation>
    </message>
    <message>
        <source>Tokens a sliding-window layer keeps (0: no window)</source>
        <translation>Tokens que uma camada de janela deslizante mantém (0: sem janela)</translation>
    </message>
    <message>
        <source>Attention layers that keep only the window</source>
        <translation>Camadas de atenção que mantêm só a janela</translation>
    </message>
    <message>
        <source>Elements of recurrent state each layer without attention keeps per sequence (Gated DeltaNet: heads × d_k × d_v; Mamba-2: heads × head_dim × d_state)</source>
        <translation>Elementos do estado recorrente que cada camada sem atenção guarda por sequência (Gated DeltaNet: cabeças × d_k × d_v; Mamba-2: cabeças × head_dim × d_state)</translation>
    </message>
    <message>
        <source>Elements of short-convolution state each layer without attention keeps per sequence (channels × kernel width)</source>
        <translation>Elementos do estado da convolução curta que cada camada sem atenção guarda por sequência (canais × largura do núcleo)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>nenhum</translation>
    </message>
    <message>
        <source>Key/value heads: as many as the query heads (MHA), fewer (GQA) or one (MQA)</source>
        <translation>Cabeças de chave/valor: tantas quanto as de consulta (MHA), menos (GQA) ou uma só (MQA)</translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation>Cabeças KV</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>desconhecido</translation>
    </message>
    <message>
        <source>Parameter count, e.g. 8.03e9, for the weights&apos; share</source>
        <translation>Número de parâmetros, p. ex. 8.03e9, para a parte dos pesos</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parâmetros</translation>
    </message>
    <message>
        <source>The parameter count must be a number, e.g. 8.03e9</source>
        <translation>O número de parâmetros deve ser um número, p. ex. 8.03e9</translation>
    </message>
</context>
<context>
    <name>ClockDial</name>
    <message>
        <source>RoPE clocks</source>
        <extracomment>At most this many clocks are drawn; more pairs show an evenly spaced subset.</extracomment>
        <translation>Relógios RoPE</translation>
    </message>
    <message>
        <source>Pair %1 of %2</source>
        <translation>Par %1 de %2</translation>
    </message>
    <message>
        <source>θ = %1 rad per token</source>
        <translation>θ = %1 rad por token</translation>
    </message>
    <message>
        <source>wavelength 2π/θ = %1 tokens (%2)</source>
        <translation>comprimento de onda 2π/θ = %1 tokens (%2)</translation>
    </message>
    <message>
        <source>query at m = %1: %2°</source>
        <translation>consulta em m = %1: %2°</translation>
    </message>
    <message>
        <source>key at n = %1: %2°</source>
        <translation>chave em n = %1: %2°</translation>
    </message>
    <message>
        <source>between them: %1° clockwise from key to query</source>
        <translation>entre elas: %1° no sentido horário, da chave à consulta</translation>
    </message>
    <message>
        <source>No frequencies</source>
        <translation>Nenhuma frequência</translation>
    </message>
    <message>
        <source>query at m = %1</source>
        <translation>consulta em m = %1</translation>
    </message>
    <message>
        <source>key at n = %1</source>
        <translation>chave em n = %1</translation>
    </message>
    <message>
        <source>m − n = %1</source>
        <translation>m − n = %1</translation>
    </message>
    <message>
        <source>%1 of %2 pairs, evenly spaced, fast → slow</source>
        <translation>%1 de %2 pares, espaçados por igual, rápido → lento</translation>
    </message>
    <message numerus="yes">
        <source>%n pair(s), fast → slow</source>
        <translation>
            <numerusform>%n par, rápido → lento</numerusform>
            <numerusform>%n pares, rápido → lento</numerusform>
        </translation>
    </message>
    <message>
        <source>hover a clock for its numbers</source>
        <translation>passe o mouse num relógio para ver os números</translation>
    </message>
    <message>
        <source>under each: wavelength in tokens</source>
        <translation>abaixo de cada um: comprimento de onda em tokens</translation>
    </message>
    <message>
        <source>under each: pair, wavelength in tokens</source>
        <translation>abaixo de cada um: par, comprimento de onda em tokens</translation>
    </message>
    <message>
        <source>%1 dimension pairs; query at position %2, key at position %3</source>
        <translation>%1 pares de dimensões; consulta na posição %2, chave na posição %3</translation>
    </message>
</context>
<context>
    <name>Compare</name>
    <message>
        <source>Running the model again with the interventions (one forward pass)…</source>
        <extracomment>Runs on their way: arguments → the redraws to call when they come. Runs that failed, by arguments (their one-line error is said, not run again), the last few.</extracomment>
        <translation>Rodando o modelo de novo com as intervenções (uma passagem direta)…</translation>
    </message>
    <message>
        <source>Layer 0 is the clean run&apos;s: it runs before the first intervention.</source>
        <translation>A camada 0 é a da execução limpa: ela roda antes da primeira intervenção.</translation>
    </message>
    <message>
        <source>Layers 0–%1 are the clean run&apos;s: they run before the first intervention.</source>
        <translation>As camadas 0–%1 são as da execução limpa: elas rodam antes da primeira intervenção.</translation>
    </message>
    <message>
        <source>Layer 0 is exactly 0: it runs before the first intervention.</source>
        <translation>A camada 0 é exatamente 0: ela roda antes da primeira intervenção.</translation>
    </message>
    <message>
        <source>Layers 0–%1 are exactly 0: they run before the first intervention.</source>
        <translation>As camadas 0–%1 são exatamente 0: elas rodam antes da primeira intervenção.</translation>
    </message>
    <message>
        <source>After: the weights with the prediction&apos;s interventions, in the model.</source>
        <translation>Depois: os pesos com as intervenções da predição, dentro do modelo.</translation>
    </message>
    <message>
        <source>ΔA = intervened A − clean A: blue below 0, red above, the middle colour 0 (levels ±%1).</source>
        <translation>ΔA = A com intervenção − A limpa: azul abaixo de 0, vermelho acima, a cor do meio é 0 (níveis ±%1).</translation>
    </message>
</context>
<context>
    <name>ControlsPanel</name>
    <message>
        <source>S  scores  QKᵀ / √d_k</source>
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
        <source>M  mixing  out = M·V</source>
        <translation>M  mistura  out = M·V</translation>
    </message>
    <message>
        <source>M: every token mixer&apos;s matrix; a softmax head&apos;s is A, a hybrid&apos;s other layers (Gated DeltaNet, …) their own, proven against the model</source>
        <translation>M: a matriz de todo misturador de tokens; a de uma cabeça softmax é A, as das outras camadas de um híbrido (Gated DeltaNet, …) são as delas, conferidas contra o modelo</translation>
    </message>
    <message>
        <source>diverging (for scores)</source>
        <translation>divergente (para pontuações)</translation>
    </message>
    <message>
        <source>Scores</source>
        <extracomment>The attention fields each group of the panel edits (a slide shows the groups it needs).</extracomment>
        <translation>Pontuações</translation>
    </message>
    <message>
        <source>&amp;d_k</source>
        <translation>&amp;d_k</translation>
    </message>
    <message>
        <source>Width of the queries and keys: the slider stops at powers of two, the box takes any whole number</source>
        <translation>Largura das consultas e chaves: o controle deslizante para nas potências de dois, a caixa aceita qualquer número inteiro</translation>
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
        <translation>Desvio padrão das pontuações S sobre os pares que o softmax vê. Pontuações que diferem em 20 dão pesos na razão e⁻²⁰ ≈ 2·10⁻⁹: um argmax rígido e gradiente zero.</translation>
    </message>
    <message>
        <source>Rotate Q and K by position (RoPE)</source>
        <translation>Girar Q e K pela posição (RoPE)</translation>
    </message>
    <message>
        <source>Each pair of dimensions of a query or key turns by its position times its own speed (base and scaling from the positions panel): the scores then depend on where the tokens are, not only on what they are</source>
        <translation>Cada par de dimensões de uma consulta ou chave gira um ângulo igual à sua posição vezes a sua própria velocidade (base e escala vêm do painel de posições): as pontuações passam a depender de onde os tokens estão, não só do que eles são</translation>
    </message>
    <message>
        <source>all</source>
        <translation>todas</translation>
    </message>
    <message>
        <source>Partial rotary: only the first dimensions turn (GPT-NeoX, Phi); the rest carry content alone. 0 turns them all</source>
        <translation>Rotação parcial: só as primeiras dimensões giram (GPT-NeoX, Phi); as demais levam só conteúdo. 0 gira todas</translation>
    </message>
    <message>
        <source>Score terms</source>
        <translation>Termos das pontuações</translation>
    </message>
    <message>
        <source>What some models do to the scores besides the scale; all off by default</source>
        <translation>O que alguns modelos fazem às pontuações além da escala; tudo desligado por padrão</translation>
    </message>
    <message>
        <source>Scores pass through cap·tanh(s / cap): none leaves (−cap, cap) (Gemma 2 uses 50). 0 = off</source>
        <translation>As pontuações passam por cap·tanh(s / cap): nenhuma sai de (−cap, cap) (o Gemma 2 usa 50). 0 = desligado</translation>
    </message>
    <message>
        <source>off</source>
        <translation>desligado</translation>
    </message>
    <message>
        <source>Ca&amp;p</source>
        <translation>&amp;Limite</translation>
    </message>
    <message>
        <source>ALiBi: each score loses slope·|i − j|, so far keys weigh less (BLOOM&apos;s heads use 1/2, 1/4, …). 0 = off</source>
        <translation>ALiBi: cada pontuação perde inclinação·|i − j|, e as chaves distantes pesam menos (as cabeças do BLOOM usam 1/2, 1/4, …). 0 = desligado</translation>
    </message>
    <message>
        <source>ALiBi &amp;slope</source>
        <translation>&amp;Inclinação ALiBi</translation>
    </message>
    <message>
        <source>Sin&amp;k logit</source>
        <translation>Logit do &amp;sumidouro</translation>
    </message>
    <message>
        <source>Every softmax denominator gains e^sink, a key that is no token: a query may then give little weight to all (gpt-oss)</source>
        <translation>Todo denominador do softmax ganha e^sink, uma chave que não é token: uma consulta pode então dar pouco peso a todas (gpt-oss)</translation>
    </message>
    <message>
        <source>The sink logit, compared with the scores</source>
        <translation>O logit do sumidouro, comparado com as pontuações</translation>
    </message>
    <message>
        <source>Query i&apos;s scores times τ = 1 + tuning·ln(⌊(i + 1) / floor⌋ + 1): attention sharpens far into a long context (Llama 4&apos;s NoPE layers: 0.1). 0 = off</source>
        <translation>Os escores da consulta i vezes τ = 1 + ganho·ln(⌊(i + 1) / piso⌋ + 1): a atenção fica mais aguda longe no contexto (camadas NoPE do Llama 4: 0,1). 0 = desligado</translation>
    </message>
    <message>
        <source>floor </source>
        <translation>piso </translation>
    </message>
    <message>
        <source>Positions per step of the tuning&apos;s logarithm (Llama 4: 8192)</source>
        <translation>Posições por degrau do logaritmo do ajuste (Llama 4: 8192)</translation>
    </message>
    <message>
        <source>&amp;Tuning</source>
        <translation>&amp;Ganho de temperatura</translation>
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
        <translation>A: de 0 a 1, como as probabilidades; S e O: a sua faixa. Desmarcado: níveis fixos abaixo</translation>
    </message>
    <message>
        <source>Stretch A&apos;s colours to its range</source>
        <translation>Esticar as cores de A à sua faixa</translation>
    </message>
    <message>
        <source>Off: a weight&apos;s colour means the same probability in every picture, so the matrices with and without √d_k compare. On: small differences show.</source>
        <translation>Desmarcado: a cor de um peso indica a mesma probabilidade em todas as imagens, e assim as matrizes com e sem √d_k se comparam. Marcado: diferenças pequenas aparecem.</translation>
    </message>
    <message>
        <source>Softmax in the steps</source>
        <translation>Softmax nos passos</translation>
    </message>
    <message>
        <source>Show e^s and its sum</source>
        <translation>Mostrar e^s e sua soma</translation>
    </message>
    <message>
        <source>The steps panel shows each e^s and their sum, which step ③ divides by</source>
        <translation>O painel de passos mostra cada e^s e a soma deles, pela qual o passo ③ divide</translation>
    </message>
    <message>
        <source>Naive, without the max</source>
        <translation>Ingênuo, sem o máximo</translation>
    </message>
    <message>
        <source>e^s / Σ e^s as written, without first subtracting the row&apos;s largest score: past e^11 in float16 (e^88 in float32) a number overflows to ∞ and the weights become NaN. The heatmap keeps the stable softmax</source>
        <translation>e^s / Σ e^s como está escrito, sem antes subtrair o maior score da linha: além de e^11 em float16 (e^88 em float32) um número estoura para ∞ e os pesos viram NaN. O mapa de calor mantém o softmax estável</translation>
    </message>
    <message>
        <source>The number format of the naive softmax</source>
        <translation>O formato numérico do softmax ingênuo</translation>
    </message>
    <message>
        <source>Spread of the scores: σ = %1</source>
        <translation>Dispersão das pontuações: σ = %1</translation>
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
        <translation>÷ √d_k = %1 — uma temperatura fixa T = √d_k</translation>
    </message>
    <message>
        <source>with T = %1: ÷ %2 in all</source>
        <translation>com T = %1: ÷ %2 no total</translation>
    </message>
    <message>
        <source>No divisor: the spread of the scores grows like √d_k = %1</source>
        <translation>Sem divisor: a dispersão das pontuações cresce como √d_k = %1</translation>
    </message>
    <message>
        <source>÷ T = %1</source>
        <translation>÷ T = %1</translation>
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
        <translation>projeções X·W (painel de cabeças)</translation>
    </message>
    <message>
        <source>a real model&apos;s head (layers panel)</source>
        <translation>modelo real (painel de camadas)</translation>
    </message>
    <message>
        <source>Arrows are drawn when d_k = 2.</source>
        <extracomment>Beyond this many tokens the arrows would be a hedge, and slow to drag; the table remains.</extracomment>
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
        <translation>Trocar a ordem das palavras</translation>
    </message>
    <message>
        <source>“%1” ⇄ “%2”: without positions the rows and columns only trade places</source>
        <translation>“%1” ⇄ “%2”: sem posições, as linhas e as colunas só trocam de lugar</translation>
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
        <translation>nº de atualizações</translation>
    </message>
    <message>
        <source>gradient row norm</source>
        <translation>norma do gradiente</translation>
    </message>
    <message>
        <source>Chapter 003, the embedding table: a lookup is a one-hot product, so a batch&apos;s gradient reaches only the rows of the tokens in it.</source>
        <extracomment>Bins per decade of rank on the rank plot.</extracomment>
        <translation>Capítulo 003, a tabela de embeddings: buscar uma linha é multiplicar por um vetor one-hot, então o gradiente de um lote só alcança as linhas dos tokens que estão nele.</translation>
    </message>
    <message>
        <source>Every row of the table, most frequent token first, read like text</source>
        <translation>Todas as linhas da tabela, do token mais frequente ao menos frequente, lidas como texto</translation>
    </message>
    <message>
        <source>Rows of the table: one per token id</source>
        <translation>Linhas da tabela: uma por id de token</translation>
    </message>
    <message>
        <source>Tokens drawn for one training batch</source>
        <translation>Tokens sorteados para um lote de treino</translation>
    </message>
    <message>
        <source>Zipf exponent: 1 is like natural text, 0 uniform</source>
        <translation>Expoente de Zipf: 1 é como texto natural, 0 é uniforme</translation>
    </message>
    <message>
        <source>Another draw of the batch</source>
        <translation>Sortear outro lote</translation>
    </message>
    <message>
        <source>Width of each row: d_model</source>
        <translation>Largura de cada linha: d_model</translation>
    </message>
    <message>
        <source>Tied input/output</source>
        <translation>E/S compartilhadas</translation>
    </message>
    <message>
        <source>The output projection reuses the embedding table</source>
        <translation>A projeção de saída reutiliza a tabela de embeddings</translation>
    </message>
    <message>
        <source>What colours each row of the strip</source>
        <translation>O que define a cor de cada linha da faixa</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>Vocabulário</translation>
    </message>
    <message>
        <source>Batch tokens</source>
        <translation>Tokens do lote</translation>
    </message>
    <message>
        <source>Zipf s</source>
        <translation>Zipf s</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Semente</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>Colour by</source>
        <translation>Colorir por</translation>
    </message>
    <message>
        <source>frequency rank</source>
        <translation>posição na frequência</translation>
    </message>
    <message>
        <source>tokens in the batch</source>
        <translation>tokens no lote</translation>
    </message>
    <message>
        <source>this batch (mean per row)</source>
        <translation>este lote (média por linha)</translation>
    </message>
    <message>
        <source>Zipf law: tokens × p(rank)</source>
        <translation>lei de Zipf: tokens × p(posição)</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s) (%1 %) (gets|get) no gradient</source>
        <translation>
            <numerusform>%n linha (%1 %) não recebe gradiente</numerusform>
            <numerusform>%n linhas (%1 %) não recebem gradiente</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s) (touches|touch)</source>
        <translation>
            <numerusform>%n token toca</numerusform>
            <numerusform>%n tokens tocam</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 %2 of %3 rows; %4.</source>
        <translation>%1 %2 de %3 linhas; %4.</translation>
    </message>
    <message>
        <source>rows %1–%2: %3, %4 of %5 rows touched</source>
        <translation>linhas %1–%2: %3, %4 de %5 linhas tocadas</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>Table %1 × %2 = %3 parameters (%4).</source>
        <translation>Tabela %1 × %2 = %3 parâmetros (%4).</translation>
    </message>
    <message>
        <source>Tied with the output projection: %1 in all, saving %2 (half).</source>
        <translation>Compartilhada com a projeção de saída: %1 no total, economizando %2 (metade).</translation>
    </message>
    <message>
        <source>With its own output projection: %1 in all; tying would save %2.</source>
        <translation>Com projeção de saída própria: %1 no total; compartilhar economizaria %2.</translation>
    </message>
    <message>
        <source>row %1 (rank %2): %3 in the batch, gradient norm %4</source>
        <translation>linha %1 (posição %2): %3 no lote, norma do gradiente %4</translation>
    </message>
</context>
<context>
    <name>EntropyPanel</name>
    <message>
        <source>entropy (nats)</source>
        <extracomment>Up to this many rows the axis names each query by its token. The plot&apos;s height over the tallest bar or bound: the legend&apos;s room above them.</extracomment>
        <translation>entropia (nats)</translation>
    </message>
    <message>
        <source>query</source>
        <translation>consulta</translation>
    </message>
    <message>
        <source>entropy of the row</source>
        <translation>entropia da linha</translation>
    </message>
    <message>
        <source>ln of the keys it sees</source>
        <translation>ln das chaves que ela vê</translation>
    </message>
    <message>
        <source>Mean entropy %1 nats over %2 rows; a row spread evenly over all %2 keys has ln %2 = %3.</source>
        <translation>Entropia média de %1 nats em %2 linhas; uma linha distribuída por igual pelas %2 chaves tem ln %2 = %3.</translation>
    </message>
    <message>
        <source>“%1”: entropy %2 nats, at most %3 (ln of the keys it sees)</source>
        <translation>“%1”: entropia de %2 nats, no máximo %3 (ln das chaves que ela vê)</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export Heatmap</source>
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
        <source>M  mixing</source>
        <translation>M  mistura</translation>
    </message>
    <message>
        <source>&amp;Matrix</source>
        <translation>&amp;Matriz</translation>
    </message>
    <message>
        <source>&amp;Size</source>
        <translation>&amp;Tamanho</translation>
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
        <translation>uma entrada da saída</translation>
    </message>
    <message>
        <source>random (seeded)</source>
        <translation>aleatório (com semente)</translation>
    </message>
    <message>
        <source>the example&apos;s own</source>
        <translation>o do próprio exemplo</translation>
    </message>
    <message>
        <source>Chapter 003, backward pass: how the loss&apos;s gradient dO flows back through A = softmax(QKᵀ/√d_k) to Q, K and V.</source>
        <extracomment>Decimals written in the cells (the chapter quotes dQ to three). The fields the saturation plot is about (a slide shows it when its lesson moves them). The lowest power of ten the saturation plot draws: smaller sizes (a double underflows near 1e−308; the sizes are exact beyond) lie on the floor. pyqtgraph&apos;s log axes stop at 1e−307.6. The matrices of the chain and the row of the figure each sits in.</extracomment>
        <translation>Capítulo 003, retropropagação: como o gradiente da perda dO volta por A = softmax(QKᵀ/√d_k) até Q, K e V.</translation>
    </message>
    <message>
        <source>Where the upstream gradient dO = ∂L/∂O comes from</source>
        <translation>De onde vem o gradiente a montante dO = ∂L/∂O</translation>
    </message>
    <message>
        <source>Seed of the random dO (normal, mean 0, variance 1)</source>
        <translation>Semente do dO aleatório (normal, média 0, variância 1)</translation>
    </message>
    <message>
        <source>The loss is this value dimension of the selected query&apos;s output</source>
        <translation>A perda é esta dimensão de valor da saída da consulta selecionada</translation>
    </message>
    <message>
        <source>The query whose softmax row the Jacobian shows</source>
        <translation>A consulta cuja linha de softmax o jacobiano mostra</translation>
    </message>
    <message>
        <source>plot vs d_k</source>
        <translation>gráfico vs d_k</translation>
    </message>
    <message>
        <source>plot vs T</source>
        <translation>gráfico vs T</translation>
    </message>
    <message>
        <source>The saturation plot: the Jacobian&apos;s size against d_k or the temperature</source>
        <translation>O gráfico de saturação: o tamanho do jacobiano em função de d_k ou da temperatura</translation>
    </message>
    <message>
        <source>The Jacobian&apos;s size: its largest entry or its Frobenius norm</source>
        <translation>O tamanho do jacobiano: sua maior entrada ou sua norma de Frobenius</translation>
    </message>
    <message>
        <source>dO:</source>
        <translation>dO:</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>semente</translation>
    </message>
    <message>
        <source>entry</source>
        <translation>entrada</translation>
    </message>
    <message>
        <source>query</source>
        <translation>consulta</translation>
    </message>
    <message>
        <source>Check with finite differences</source>
        <translation>Verificar com diferenças finitas</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>dO: L = O[%1, %2]</source>
        <translation>dO: L = O[%1, %2]</translation>
    </message>
    <message>
        <source>dO ~ N(0, 1), seed %1</source>
        <translation>dO ~ N(0, 1), semente %1</translation>
    </message>
    <message>
        <source>dO: the example&apos;s own</source>
        <translation>dO: o do exemplo</translation>
    </message>
    <message>
        <source>J = diag(a) − a aᵀ, query “%1”</source>
        <translation>J = diag(a) − a aᵀ, consulta “%1”</translation>
    </message>
    <message>
        <source>with the √d_k divisor</source>
        <translation>com o divisor √d_k</translation>
    </message>
    <message>
        <source>without it</source>
        <translation>sem ele</translation>
    </message>
    <message>
        <source>temperature T</source>
        <translation>temperatura T</translation>
    </message>
    <message>
        <source>largest |J_ij|</source>
        <translation>maior |J_ij|</translation>
    </message>
    <message>
        <source>‖J‖ Frobenius</source>
        <translation>‖J‖ de Frobenius</translation>
    </message>
    <message>
        <source>dS rows sum to 0 (largest |Σ| %1)</source>
        <translation>as linhas de dS somam 0 (maior |Σ| %1)</translation>
    </message>
    <message>
        <source>%1 tokens: the matrices are drawn for up to %2 (exports have them)</source>
        <translation>%1 tokens: as matrizes são desenhadas para até %2 (as exportações as incluem)</translation>
    </message>
    <message>
        <source>Jacobian of “%1”: largest entry %2, Frobenius norm %3</source>
        <translation>Jacobiano de “%1”: maior entrada %2, norma de Frobenius %3</translation>
    </message>
    <message>
        <source>the d_k curve is drawn for up to %1 tokens</source>
        <translation>a curva em d_k é desenhada para até %1 tokens</translation>
    </message>
    <message>
        <source>typed vectors: the d_k curve is the typical size for random q, k (the dot is this row)</source>
        <translation>vetores digitados: a curva em d_k é o tamanho típico para q, k aleatórios (o ponto é esta linha)</translation>
    </message>
    <message>
        <source>RoPE on: Q and K are the rotated vectors; dQ, dK are gradients with respect to them</source>
        <translation>RoPE ligado: Q e K são os vetores girados; dQ, dK são gradientes em relação a eles</translation>
    </message>
    <message>
        <source>Compare dQ, dK, dV with central differences of the loss (ε = 1e−6)</source>
        <translation>Comparar dQ, dK, dV com diferenças centrais da perda (ε = 1e−6)</translation>
    </message>
    <message>
        <source>Too large to check here: try fewer tokens or a smaller d_k</source>
        <translation>Grande demais para verificar aqui: tente menos tokens ou um d_k menor</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Verificando…</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Cancelado.</translation>
    </message>
    <message>
        <source>The example changed while checking: check again.</source>
        <translation>O exemplo mudou durante a verificação: verifique de novo.</translation>
    </message>
    <message>
        <source>Largest error against finite differences: dQ %1 · dK %2 · dV %3</source>
        <translation>Maior erro em relação às diferenças finitas: dQ %1 · dK %2 · dV %3</translation>
    </message>
</context>
<context>
    <name>HeadGrid</name>
    <message>
        <source>KV head %1</source>
        <extracomment>How much of a switched-off head&apos;s map the veil hides (its cells still show through).</extracomment>
        <translation>cabeça KV %1</translation>
    </message>
    <message>
        <source>KV %1</source>
        <translation>KV %1</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>cabeça %1</translation>
    </message>
    <message>
        <source>rows: queries · columns: keys · A from 0 to 1</source>
        <translation>linhas: consultas · colunas: chaves · A de 0 a 1</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>mascarada</translation>
    </message>
    <message>
        <source>head %1 · “%2” → key “%3”: A = %4</source>
        <translation>cabeça %1 · “%2” → chave “%3”: A = %4</translation>
    </message>
</context>
<context>
    <name>HeadLogitsBox</name>
    <message>
        <source>Computing each head&apos;s direct effect…</source>
        <translation>Calculando o efeito direto de cada cabeça…</translation>
    </message>
    <message>
        <source>Direct effect on logit(★“%1”) − mean — an attribution, not a proof</source>
        <translation>Efeito direto no logit(★“%1”) − média — uma atribuição, não uma prova</translation>
    </message>
    <message>
        <source>Each head&apos;s output through its columns of W^O, the final norm with its scale frozen at the clean run, and the row of ★“%1” in the unembedding minus the vocabulary&apos;s mean; red raises the logit, blue lowers it. Heads %2, MLPs %3, embeddings %4, the rest %5: %6 in all, the model&apos;s logit.</source>
        <translation>A saída de cada cabeça pelas suas colunas de W^O, pela norma final com a escala congelada na execução limpa e pela linha de ★“%1” na matriz de unembedding menos a média do vocabulário; vermelho sobe o logit, azul o baixa. Cabeças %2, MLPs %3, embeddings %4, o restante %5: %6 ao todo, o logit do modelo.</translation>
    </message>
    <message>
        <source>Before the final softcap %1 · tanh(z / %1), which is not linear.</source>
        <translation>Antes do limite suave final %1 · tanh(z / %1), que não é linear.</translation>
    </message>
    <message>
        <source>Hatched: not softmax attention (its share is in the rest).</source>
        <translation>Hachurado: não é atenção softmax (sua parte está no restante).</translation>
    </message>
</context>
<context>
    <name>HeadLogitsView</name>
    <message>
        <source>L%1</source>
        <translation>C%1</translation>
    </message>
    <message>
        <source>H%1</source>
        <translation>H%1</translation>
    </message>
    <message>
        <source>layer %1, head %2: not softmax attention, no head</source>
        <translation>camada %1, cabeça %2: não é atenção softmax, não há cabeça</translation>
    </message>
    <message>
        <source>layer %1, head %2: direct effect %3 on logit(“%4”) − mean, of %5 in all (an attribution, not a proof)</source>
        <translation>camada %1, cabeça %2: efeito direto %3 no logit(“%4”) − média, de %5 ao todo (uma atribuição, não uma prova)</translation>
    </message>
</context>
<context>
    <name>HeadSwitches</name>
    <message>
        <source>O = concat(O_1 … O_h)·W^O = Σ_i O_i·W^O_i: each head adds its own term. Switch a head off to set its slice of W^O&apos;s input to 0; O′ is the sum of the other terms. Exact arithmetic on synthetic heads: a proof, not an attribution.</source>
        <translation>O = concat(O_1 … O_h)·W^O = Σ_i O_i·W^O_i: cada cabeça soma a sua própria parcela. Desligue uma cabeça para zerar a fatia dela na entrada de W^O; O′ é a soma das outras parcelas. Aritmética exata sobre cabeças sintéticas: uma prova, não uma atribuição.</translation>
    </message>
    <message>
        <source>All heads on</source>
        <translation>Todas as cabeças ligadas</translation>
    </message>
    <message>
        <source>Switch every head back on: O′ = O</source>
        <translation>Religa todas as cabeças: O′ = O</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>cabeça %1</translation>
    </message>
    <message>
        <source>Head %1 is on: unchecked, columns %2…%3 of W^O&apos;s input are set to 0 and its term leaves O</source>
        <translation>A cabeça %1 está ligada: desmarcada, as colunas %2…%3 da entrada de W^O viram 0 e a parcela dela sai de O</translation>
    </message>
    <message>
        <source>Head %1 is off: columns %2…%3 of W^O&apos;s input are 0</source>
        <translation>A cabeça %1 está desligada: as colunas %2…%3 da entrada de W^O são 0</translation>
    </message>
    <message>
        <source>A real model&apos;s W^O is not captured here: switch its heads off in the Prediction panel (an ablation inside the model&apos;s own forward pass).</source>
        <translation>O W^O de um modelo real não é capturado aqui: desligue as cabeças dele no painel Predição (uma ablação dentro da própria passagem direta do modelo).</translation>
    </message>
    <message>
        <source>Each head&apos;s term through W^O needs learned projections.</source>
        <translation>A parcela de cada cabeça através de W^O precisa de projeções aprendidas.</translation>
    </message>
    <message>
        <source>head %1 (off)</source>
        <translation>cabeça %1 (desligada)</translation>
    </message>
    <message>
        <source>“%1”, head %2: ‖O_%2·W^O_%2‖ = %3</source>
        <translation>“%1”, cabeça %2: ‖O_%2·W^O_%2‖ = %3</translation>
    </message>
    <message>
        <source>(switched off: not in O′)</source>
        <translation>(desligada: fora de O′)</translation>
    </message>
    <message>
        <source>“%1”: ‖O‖ = %2, all heads on</source>
        <translation>“%1”: ‖O‖ = %2, com todas as cabeças ligadas</translation>
    </message>
    <message>
        <source>“%1”: ‖O′‖ = %2, the heads switched off removed</source>
        <translation>“%1”: ‖O′‖ = %2, sem as cabeças desligadas</translation>
    </message>
    <message>
        <source>“%1”: ‖O′ − O‖ = %2, the switched-off heads&apos; terms</source>
        <translation>“%1”: ‖O′ − O‖ = %2, as parcelas das cabeças desligadas</translation>
    </message>
    <message>
        <source>Σ_i O_i·W^O_i − O: largest entry %1 (rounding only).</source>
        <translation>Σ_i O_i·W^O_i − O: maior entrada %1 (só arredondamento).</translation>
    </message>
    <message>
        <source>Heads off: %1; O′ − O is minus their terms, largest entry %2.</source>
        <translation>Cabeças desligadas: %1; O′ − O é menos as parcelas delas, maior entrada %2.</translation>
    </message>
    <message>
        <source>Every head is on: O′ = O.</source>
        <translation>Todas as cabeças estão ligadas: O′ = O.</translation>
    </message>
</context>
<context>
    <name>HeadTypeGrid</name>
    <message>
        <source>layer %1</source>
        <extracomment>One colour per type, told apart by readers with colour-vision deficiencies (Okabe–Ito). The palest a tile of the strongest type is drawn (a score of 0 would vanish).</extracomment>
        <translation>camada %1</translation>
    </message>
    <message>
        <source>each head: its %1 score · columns: heads</source>
        <translation>cada cabeça: sua pontuação de %1 · colunas: cabeças</translation>
    </message>
    <message>
        <source>layer %1, head %2</source>
        <translation>camada %1, cabeça %2</translation>
    </message>
    <message>
        <source>%1: scored on |M| with each row summing to 1</source>
        <translation>%1: pontuada em |M| com cada linha somando 1</translation>
    </message>
</context>
<context>
    <name>HeadTypes</name>
    <message>
        <source>previous token</source>
        <extracomment>Short labels (a tile of the grid, the legend), context ``HeadTypes``.</extracomment>
        <translation>token anterior</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>indução</translation>
    </message>
    <message>
        <source>sink (first token)</source>
        <translation>sumidouro (primeiro token)</translation>
    </message>
    <message>
        <source>local (±2)</source>
        <translation>local (±2)</translation>
    </message>
    <message>
        <source>self</source>
        <translation>si mesmo</translation>
    </message>
    <message>
        <source>next token</source>
        <translation>próximo token</translation>
    </message>
    <message>
        <source>[CLS]</source>
        <translation>[CLS]</translation>
    </message>
    <message>
        <source>[SEP]</source>
        <translation>[SEP]</translation>
    </message>
    <message>
        <source>Previous token: the mean weight of each query t ≥ 1 on key t − 1.</source>
        <extracomment>One or two letters a small tile carries. What each score is: the tooltip&apos;s line.</extracomment>
        <translation>Token anterior: o peso médio que cada consulta t ≥ 1 dá à chave t − 1.</translation>
    </message>
    <message>
        <source>Induction (Olsson et al. 2022): on seeded random tokens of the model&apos;s own vocabulary, repeated once, the mean weight of each repeated token on the token that followed its first occurrence.</source>
        <translation>Indução (Olsson et al. 2022): sobre tokens aleatórios (com semente) do próprio vocabulário do modelo, repetidos uma vez, o peso médio que cada token repetido dá ao token que veio depois da sua primeira ocorrência.</translation>
    </message>
    <message>
        <source>Sink: the mean weight of each query t ≥ 1 on the first token.</source>
        <translation>Sumidouro: o peso médio que cada consulta t ≥ 1 dá ao primeiro token.</translation>
    </message>
    <message>
        <source>Local: the mean over queries of the weight on keys at most 2 positions away, |t − s| ≤ 2 (itself included).</source>
        <translation>Local: a média, entre as consultas, do peso nas chaves a no máximo 2 posições de distância, |t − s| ≤ 2 (incluindo ela mesma).</translation>
    </message>
    <message>
        <source>Self: the mean weight of each query on itself.</source>
        <translation>Si mesmo: o peso médio que cada consulta dá a si própria.</translation>
    </message>
    <message>
        <source>Next token: the mean weight of each query t ≤ n − 2 on key t + 1 (0 where the mask is causal).</source>
        <translation>Próximo token: o peso médio que cada consulta t ≤ n − 2 dá à chave t + 1 (0 quando a máscara é causal).</translation>
    </message>
    <message>
        <source>[CLS] (Clark et al. 2019): the mean over queries of the weight on the tokenizer&apos;s classifier token; empty where the sentence has none.</source>
        <translation>[CLS] (Clark et al. 2019): a média, entre as consultas, do peso no token de classificação do tokenizador; vazio quando a frase não o tem.</translation>
    </message>
    <message>
        <source>[SEP] (Clark et al. 2019): the mean over queries of the weight on the tokenizer&apos;s separator tokens; empty where the sentence has none.</source>
        <translation>[SEP] (Clark et al. 2019): a média, entre as consultas, do peso nos tokens separadores do tokenizador; vazio quando a frase não os tem.</translation>
    </message>
</context>
<context>
    <name>HeadsPanel</name>
    <message>
        <source>Q = X·W_Q</source>
        <extracomment>Rows of the FLOP table: a FlopCount field and what it counts.</extracomment>
        <translation>Q = X·W_Q</translation>
    </message>
    <message>
        <source>K = X·W_K</source>
        <translation>K = X·W_K</translation>
    </message>
    <message>
        <source>V = X·W_V</source>
        <translation>V = X·W_V</translation>
    </message>
    <message>
        <source>S = Q·Kᵀ</source>
        <translation>S = Q·Kᵀ</translation>
    </message>
    <message>
        <source>A·V</source>
        <translation>A·V</translation>
    </message>
    <message>
        <source>concat·W^O</source>
        <translation>concat·W^O</translation>
    </message>
    <message>
        <source>FLOPs in all</source>
        <translation>FLOPs no total</translation>
    </message>
    <message>
        <source>score entries (softmax)</source>
        <translation>entradas de pontuação (softmax)</translation>
    </message>
    <message>
        <source>KV cache, numbers per token</source>
        <translation>cache KV, números por token</translation>
    </message>
    <message>
        <source>MHA: one KV head per query head</source>
        <translation>MHA: uma cabeça KV por cabeça de consulta</translation>
    </message>
    <message>
        <source>MQA: all %1 query heads share one KV head</source>
        <translation>MQA: as %1 cabeças de consulta compartilham uma cabeça KV</translation>
    </message>
    <message>
        <source>GQA: %1 query heads per KV head</source>
        <translation>GQA: %1 cabeças de consulta por cabeça KV</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>Cabeças</translation>
    </message>
    <message>
        <source>Chapter 003, multi-head: X·W gives each head its Q, K, V; the heads side by side, times W^O, give the output.</source>
        <translation>Capítulo 003, múltiplas cabeças: X·W dá a cada cabeça seus Q, K, V; as cabeças lado a lado, vezes W^O, dão a saída.</translation>
    </message>
    <message>
        <source>Shapes and FLOPs</source>
        <translation>Formas e FLOPs</translation>
    </message>
    <message>
        <source>Through W^O</source>
        <translation>Através de W^O</translation>
    </message>
    <message>
        <source>Use learned projections</source>
        <translation>Usar projeções aprendidas</translation>
    </message>
    <message>
        <source>Make Q, K and V from embeddings X and matrices W</source>
        <translation>Gerar Q, K e V a partir de embeddings X e matrizes W</translation>
    </message>
    <message>
        <source>Query heads h</source>
        <translation>Cabeças de consulta h</translation>
    </message>
    <message>
        <source>Key/value heads: h = MHA, fewer = GQA, 1 = MQA</source>
        <translation>Cabeças de chave/valor: h = MHA, menos = GQA, 1 = MQA</translation>
    </message>
    <message>
        <source>Width of X</source>
        <translation>Largura de X</translation>
    </message>
    <message>
        <source>Width of one head (d_k)</source>
        <translation>Largura de uma cabeça (d_k)</translation>
    </message>
    <message>
        <source>&amp;Heads</source>
        <translation>&amp;Cabeças</translation>
    </message>
    <message>
        <source>&amp;KV heads</source>
        <translation>Cabeças &amp;KV</translation>
    </message>
    <message>
        <source>d_&amp;model</source>
        <translation>d_&amp;model</translation>
    </message>
    <message>
        <source>d_h&amp;ead</source>
        <translation>d_h&amp;ead</translation>
    </message>
    <message>
        <source>Array</source>
        <translation>Array</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>Forma</translation>
    </message>
    <message>
        <source>Here</source>
        <translation>Aqui</translation>
    </message>
    <message>
        <source>Columns: one head of width h·d_head; h heads of width d_head with a KV head each (MHA); the same heads sharing n_kv_heads KV heads</source>
        <translation>Colunas: uma cabeça de largura h·d_head; h cabeças de largura d_head, cada uma com sua cabeça KV (MHA); as mesmas cabeças compartilhando n_kv_heads cabeças KV</translation>
    </message>
    <message>
        <source>Q, K and V are typed or come from a synthetic head: one head, no X and no W. Use learned projections to split a model into heads.</source>
        <translation>Q, K e V são digitados ou vêm de uma cabeça sintética: uma cabeça só, sem X e sem W. Use projeções aprendidas para dividir um modelo em cabeças.</translation>
    </message>
    <message>
        <source>FLOPs need the projections</source>
        <translation>Os FLOPs exigem as projeções</translation>
    </message>
    <message>
        <source>1 × %1</source>
        <translation>1 × %1</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>%1 KV</source>
        <translation>%1 KV</translation>
    </message>
    <message>
        <source>Product</source>
        <translation>Produto</translation>
    </message>
    <message>
        <source>One head: n = %1, d_k = %2.</source>
        <translation>Uma cabeça: n = %1, d_k = %2.</translation>
    </message>
    <message>
        <source>%1 heads × %2 = 1 head × %3: %4 FLOPs either way, %5 multiply-adds (%1× the scores).</source>
        <translation>%1 cabeças × %2 = 1 cabeça × %3: %4 FLOPs de qualquer forma, %5 multiplicações-adições (%1× as pontuações).</translation>
    </message>
    <message>
        <source> KV cache: %1 numbers per token, not %2 (÷%3).</source>
        <translation> Cache KV: %1 números por token, e não %2 (÷%3).</translation>
    </message>
</context>
<context>
    <name>HeatmapPanel</name>
    <message>
        <source>how well each query matches each key</source>
        <extracomment>pyqtgraph maps behind the state&apos;s colormap names; the diverging one is for scores. What each matrix (and the weights with a sink) means, under its formula.</extracomment>
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
        <source>row t: how much of each value v_s the output at t takes</source>
        <translation>linha t: quanto de cada valor v_s a saída em t recebe</translation>
    </message>
    <message>
        <source>each row gives part of its weight to the sink and spreads the rest over the keys: rows sum to less than 1</source>
        <translation>cada linha dá parte do seu peso ao sumidouro e espalha o resto pelas chaves: as linhas somam menos que 1</translation>
    </message>
    <message>
        <source>%1 · layer %2 · head %3</source>
        <extracomment>Automatic levels of the weights: a probability is between 0 and 1.</extracomment>
        <translation>%1 · camada %2 · cabeça %3</translation>
    </message>
    <message>
        <source>%1 is not softmax attention: these steps put its q and k through a softmax the model never computes; how it mixes its tokens is the heatmap&apos;s M</source>
        <translation>%1 não é atenção softmax: estes passos levam seus q e k por um softmax que o modelo nunca calcula; como a camada mistura os tokens é a M do mapa de calor</translation>
    </message>
    <message>
        <source>RoPE: d_k = 1 has no pair of dimensions to turn, so nothing moves</source>
        <translation>RoPE: com d_k = 1 não há par de dimensões para girar, então nada se move</translation>
    </message>
    <message>
        <source>RoPE: Q and K turned by token position, one pair of dimensions</source>
        <translation>RoPE: Q e K girados pela posição do token, um par de dimensões</translation>
    </message>
    <message>
        <source>RoPE: Q and K turned by token position, %1 pairs of dimensions</source>
        <translation>RoPE: Q e K girados pela posição do token, %1 pares de dimensões</translation>
    </message>
    <message>
        <source> (d_k = %1 is odd: its last dimension has no partner and stays)</source>
        <translation> (d_k = %1 é ímpar: sua última dimensão não tem par e fica como está)</translation>
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
        <source>Before / after shows the weights A: choose A to see it.</source>
        <translation>Antes / depois mostra os pesos A: escolha A para vê-lo.</translation>
    </message>
    <message>
        <source>%1  query “%2”, dimension “%3” = %4</source>
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
        <translation>entropia da linha de “%1” = %2 nats   (0: uma chave leva tudo; ln %3 = %4: distribuída por igual)</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>The translation into this language could not be loaded.</source>
        <extracomment>Shipped languages and their names in their own language (never translated, so that a user lost in a language they cannot read still finds their own). The menu choices: the system&apos;s language, or one of :data:`LANGUAGES`. Translation catalogues of Qt itself (standard buttons, file dialogs, context menus).</extracomment>
        <translation>Não foi possível carregar a tradução para este idioma.</translation>
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
    <name>LayerGrid</name>
    <message>
        <source>layer %1</source>
        <extracomment>Largest tile image side in cells: 448 tiles of 64² stay a few megabytes.</extracomment>
        <translation>camada %1</translation>
    </message>
    <message>
        <source>%1: not drawn</source>
        <translation>%1: não desenhada</translation>
    </message>
    <message>
        <source>each head: A of the chosen link · columns: heads</source>
        <translation>cada cabeça: A da ligação escolhida · colunas: cabeças</translation>
    </message>
    <message>
        <source>each head: rows queries, columns keys · columns: heads</source>
        <translation>cada cabeça: linhas consultas, colunas chaves · colunas: cabeças</translation>
    </message>
    <message>
        <source>“%1” → “%2”</source>
        <translation>“%1” → “%2”</translation>
    </message>
    <message>
        <source>layer %1: %2 — %3</source>
        <translation>camada %1: %2 — %3</translation>
    </message>
    <message>
        <source>layer %1: %2 — no softmax attention, no weights to draw</source>
        <translation>camada %1: %2 — sem atenção softmax, sem pesos para desenhar</translation>
    </message>
    <message>
        <source>layer %1 · head %2 · “%3” → “%4”: A = %5</source>
        <translation>camada %1 · cabeça %2 · “%3” → “%4”: A = %5</translation>
    </message>
    <message>
        <source>layer %1 · head %2 · “%3” → “%4”: %5 = %6</source>
        <translation>camada %1 · cabeça %2 · “%3” → “%4”: %5 = %6</translation>
    </message>
    <message>
        <source>layer %1 · head %2 · “%3” → “%4”: M = %5 (the block&apos;s value farthest from 0) · %6, this layer&apos;s scale ±%7</source>
        <translation>camada %1 · cabeça %2 · “%3” → “%4”: M = %5 (o valor do bloco mais longe de 0) · %6, escala desta camada ±%7</translation>
    </message>
    <message>
        <source>layer %1 · head %2 · “%3” → “%4”: M = %5 · %6, this layer&apos;s scale ±%7</source>
        <translation>camada %1 · cabeça %2 · “%3” → “%4”: M = %5 · %6, escala desta camada ±%7</translation>
    </message>
    <message>
        <source>%1: M, blue &lt; 0 &lt; red, ±max|M| a row</source>
        <translation>%1: M, azul &lt; 0 &lt; vermelho, ±max|M| por linha</translation>
    </message>
    <message>
        <source>(the first %1 of up to %2 heads)</source>
        <translation>(as primeiras %1 de até %2 cabeças)</translation>
    </message>
</context>
<context>
    <name>LayersMixing</name>
    <message>
        <source>Proving the mixing matrices of %1 other layers against the model&apos;s kernel…</source>
        <translation>Provando as matrizes de mistura de %1 outras camadas contra o kernel do modelo…</translation>
    </message>
</context>
<context>
    <name>LayersPanel</name>
    <message>
        <source>Open Model…</source>
        <translation>Abrir modelo…</translation>
    </message>
    <message>
        <source>A local Hugging Face model folder (safetensors)</source>
        <translation>Uma pasta local de modelo do Hugging Face (safetensors)</translation>
    </message>
    <message>
        <source>&amp;Sentence</source>
        <translation>&amp;Frase</translation>
    </message>
    <message>
        <source>Runs through the model once; its tokenizer makes the tokens (Enter)</source>
        <translation>Passa uma vez pelo modelo; o tokenizador dele gera os tokens (Enter)</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Executar</translation>
    </message>
    <message>
        <source>&amp;Link</source>
        <translation>&amp;Ligação</translation>
    </message>
    <message>
        <source>The query token (the row)</source>
        <translation>O token da consulta (a linha)</translation>
    </message>
    <message>
        <source>The key token it looks at (the column)</source>
        <translation>O token da chave para o qual ela olha (a coluna)</translation>
    </message>
    <message>
        <source>&amp;Colour by the link</source>
        <translation>&amp;Colorir pela ligação</translation>
    </message>
    <message>
        <source>Fill each head with its weight from the query to the key</source>
        <translation>Preencher cada cabeça com o seu peso da consulta para a chave</translation>
    </message>
    <message>
        <source>Show the &amp;strongest</source>
        <translation>Mostrar a mais fo&amp;rte</translation>
    </message>
    <message>
        <source>After: every head with the prediction&apos;s interventions.</source>
        <translation>Depois: cada cabeça com as intervenções da predição.</translation>
    </message>
    <message>
        <source>A′ after the interventions</source>
        <translation>A′ depois das intervenções</translation>
    </message>
    <message>
        <source>Before / after: intervened − clean, blue below 0, red above.</source>
        <translation>Antes / depois: com intervenção − limpa, azul abaixo de 0, vermelho acima.</translation>
    </message>
    <message>
        <source>ΔA = intervened − clean, 0 in the middle</source>
        <translation>ΔA = com intervenção − limpa, 0 no meio</translation>
    </message>
    <message>
        <source>The head shown is not the model&apos;s (a what-if, or another head source). Click a head to show the model&apos;s again.</source>
        <translation>A cabeça mostrada não é a do modelo (uma hipótese, ou outra fonte de cabeça). Clique numa cabeça para voltar a mostrar a do modelo.</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder (File → Open Model… or attnviz --model DIR) to see every head of every layer here.</source>
        <translation>Abra uma pasta de modelo do Hugging Face (Arquivo → Abrir modelo… ou attnviz --model DIR) para ver aqui todas as cabeças de todas as camadas.</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 × %4 (%5 KV) · d_head %6 · %7 as the model sees them</source>
        <translation>%1 · %2 · %3 × %4 (%5 KV) · d_head %6 · %7 como o modelo os vê</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n camada</numerusform>
            <numerusform>%n camadas</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n cabeça</numerusform>
            <numerusform>%n cabeças</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · %2 · %3 · %4 as the model sees them</source>
        <translation>%1 · %2 · %3 · %4 como o modelo os vê</translation>
    </message>
    <message>
        <source>; special: %1</source>
        <translation>; especiais: %1</translation>
    </message>
    <message>
        <source>A state-space model (%1): no softmax attention; every layer is drawn as its mixing matrices M (out_t = Σ_s M[t, s] v_s), each proven against the model&apos;s own kernel.</source>
        <translation>Um modelo de espaço de estados (%1): sem atenção softmax; cada camada é desenhada como suas matrizes de mistura M (out_t = Σ_s M[t, s] v_s), cada uma provada contra o próprio kernel do modelo.</translation>
    </message>
    <message>
        <source>A hybrid: %1; its other layers are drawn as their mixing matrices M (out_t = Σ_s M[t, s] v_s), each proven against the model&apos;s own kernel.</source>
        <translation>Um híbrido: %1; suas outras camadas são desenhadas como suas matrizes de mistura M (out_t = Σ_s M[t, s] v_s), cada uma provada contra o próprio kernel do modelo.</translation>
    </message>
    <message>
        <source>The language model of a %1 folder; its vision tower is not shown.</source>
        <translation>O modelo de linguagem de uma pasta %1; a torre de visão não é mostrada.</translation>
    </message>
    <message>
        <source>Shown: layer %1, head %2 (KV head %3).</source>
        <translation>Mostrada: camada %1, cabeça %2 (cabeça KV %3).</translation>
    </message>
    <message>
        <source>Shown: layer %1, head %2.</source>
        <translation>Mostrada: camada %1, cabeça %2.</translation>
    </message>
    <message>
        <source>Kind: %1.</source>
        <translation>Tipo: %1.</translation>
    </message>
    <message>
        <source>L%1·h%2 %3</source>
        <translation>L%1·h%2 %3</translation>
    </message>
    <message>
        <source> “%1” → “%2”: A = %3 here; strongest %4.</source>
        <translation> “%1” → “%2”: A = %3 aqui; mais fortes: %4.</translation>
    </message>
    <message>
        <source>Choose a link first: a query token and a key token.</source>
        <translation>Escolha uma ligação primeiro: um token de consulta e um token de chave.</translation>
    </message>
</context>
<context>
    <name>LayersViews</name>
    <message>
        <source>Every head&apos;s weights</source>
        <extracomment>What each view is called in its box, and what its tooltip says.</extracomment>
        <translation>Pesos de cada cabeça</translation>
    </message>
    <message>
        <source>Each head as a small map of its attention weights</source>
        <translation>Cada cabeça como um pequeno mapa dos seus pesos de atenção</translation>
    </message>
    <message>
        <source>Heads by type</source>
        <translation>Cabeças por tipo</translation>
    </message>
    <message>
        <source>Each head coloured by what it does: previous token, induction, sink, local, self, next token, [CLS], [SEP]</source>
        <translation>Cada cabeça colorida pelo que faz: token anterior, indução, sumidouro, local, si mesmo, próximo token, [CLS], [SEP]</translation>
    </message>
    <message>
        <source>Rollout</source>
        <translation>Rollout</translation>
    </message>
    <message>
        <source>Attention rollout (Abnar &amp; Zuidema 2020): R = Â_L ··· Â_1 with Â = rownorm(0.5 · mean over heads of A + 0.5 · I), and one token&apos;s flow</source>
        <translation>Rollout de atenção (Abnar &amp; Zuidema 2020): R = Â_L ··· Â_1 com Â = rownorm(0.5 · média das cabeças de A + 0.5 · I), e o fluxo de um token</translation>
    </message>
    <message>
        <source>What the figure shows of the model</source>
        <translation>O que a figura mostra do modelo</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Visão</translation>
    </message>
    <message>
        <source>strongest type</source>
        <translation>tipo mais forte</translation>
    </message>
    <message>
        <source>Each head in the colour of its highest score, as strong as that score</source>
        <translation>Cada cabeça na cor da sua maior pontuação, tão intensa quanto essa pontuação</translation>
    </message>
    <message>
        <source>Colour the heads by their strongest type or by one score</source>
        <translation>Colorir as cabeças pelo tipo mais forte ou por uma pontuação</translation>
    </message>
    <message>
        <source>The token whose flow across the layers is drawn</source>
        <translation>O token cujo fluxo pelas camadas é desenhado</translation>
    </message>
    <message>
        <source>Open a model (File → Open Model…) to see its heads by type and rollout.</source>
        <translation>Abra um modelo (Arquivo → Abrir modelo…) para ver as cabeças por tipo e o rollout.</translation>
    </message>
    <message>
        <source>Rolling out through the hybrid&apos;s other layers: proving their mixing matrices against the model&apos;s kernel…</source>
        <translation>Propagando pelas outras camadas do híbrido: provando suas matrizes de mistura contra o kernel do modelo…</translation>
    </message>
    <message>
        <source>Rollout counts the residual stream as half of each layer; it is a model of how tokens mix, not a proof of what the output depends on.</source>
        <translation>O rollout conta o fluxo residual como metade de cada camada; é um modelo de como os tokens se misturam, não uma prova daquilo de que a saída depende.</translation>
    </message>
    <message>
        <source>The heads of layers %1 that are not softmax attention enter the mean over heads as |M|, their proven mixing matrix, each row scaled to sum to 1.</source>
        <translation>As cabeças das camadas %1 que não são atenção softmax entram na média das cabeças como |M|, sua matriz de mistura provada, cada linha escalada para somar 1.</translation>
    </message>
    <message>
        <source>Scoring every head…</source>
        <translation>Pontuando cada cabeça…</translation>
    </message>
    <message>
        <source>Induction: scored on %1 random tokens of the model&apos;s vocabulary (seed %2) written twice; the other types on the sentence shown. Hover a head for every score.</source>
        <translation>Indução: pontuada em %1 tokens aleatórios do vocabulário do modelo (semente %2) escritos duas vezes; os outros tipos na frase mostrada. Passe o mouse sobre uma cabeça para ver todas as pontuações.</translation>
    </message>
    <message>
        <source>The heads of layers %1 that are not softmax attention are scored on |M|, their proven mixing matrix, each row scaled to sum to 1.</source>
        <translation>As cabeças das camadas %1 que não são atenção softmax são pontuadas em |M|, sua matriz de mistura provada, cada linha escalada para somar 1.</translation>
    </message>
</context>
<context>
    <name>LessonPanel</name>
    <message>
        <source>Each lesson walks through one section of the documents: every step sets up the panels and says what to look at.</source>
        <extracomment>Rows of the lesson list kept in view at least: past them the list takes the room the dock leaves under its caption and buttons, all its lessons where they fit, and scrolls only where they do not (sixteen titles wrapped in a narrow Portuguese dock pushed the buttons out of it).</extracomment>
        <translation>Cada lição percorre uma seção dos documentos: cada passo prepara os painéis e diz o que observar.</translation>
    </message>
    <message>
        <source>◀ &amp;Back</source>
        <translation>◀ &amp;Voltar</translation>
    </message>
    <message>
        <source>&amp;Next ▶</source>
        <translation>&amp;Avançar ▶</translation>
    </message>
    <message>
        <source>The step before (← or PageUp while presenting)</source>
        <translation>O passo anterior (← ou PageUp durante a apresentação)</translation>
    </message>
    <message>
        <source>The next step (→ or PageDown while presenting)</source>
        <translation>O próximo passo (→ ou PageDown durante a apresentação)</translation>
    </message>
    <message>
        <source>&amp;Present (F5)</source>
        <translation>A&amp;presentar (F5)</translation>
    </message>
    <message>
        <source>Show this step full screen, for a lecture hall</source>
        <translation>Mostrar este passo em tela cheia, para um auditório</translation>
    </message>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n passo</numerusform>
            <numerusform>%n passos</numerusform>
        </translation>
    </message>
    <message>
        <source>No lesson open</source>
        <translation>Nenhuma lição aberta</translation>
    </message>
    <message>
        <source>Pick a lesson in the list to start it.</source>
        <translation>Escolha uma lição na lista para começá-la.</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>Passo %1 de %2</translation>
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
        <source>Export A&amp;nimation…</source>
        <translation>Exportar an&amp;imação…</translation>
    </message>
    <message>
        <source>Save a panel as GIF, WebP, APNG or MP4 while one of its fields sweeps</source>
        <translation>Salva um painel como GIF, WebP, APNG ou MP4 enquanto um de seus campos varia</translation>
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
        <source>Foc&amp;us on Panel</source>
        <translation>F&amp;ocar no painel</translation>
    </message>
    <message>
        <source>Show the current panel alone in the window; again to bring the others back</source>
        <translation>Mostra só o painel atual na janela; de novo, traz os outros de volta</translation>
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
        <source>Before / &amp;After</source>
        <translation>Antes / &amp;depois</translation>
    </message>
    <message>
        <source>&amp;Clean run</source>
        <translation>Execução &amp;limpa</translation>
    </message>
    <message>
        <source>&amp;Intervened run</source>
        <translation>Execução com &amp;intervenção</translation>
    </message>
    <message>
        <source>Intervened − clean (&amp;difference)</source>
        <translation>Com intervenção − limpa (&amp;diferença)</translation>
    </message>
    <message>
        <source>The heatmap and the layers grid of a real model, with the prediction panel&apos;s ablated heads and knocked-out links</source>
        <translation>O mapa de calor e a grade de camadas de um modelo real, com as cabeças desligadas e as ligações cortadas do painel de predição</translation>
    </message>
    <message>
        <source>&amp;Decimals</source>
        <translation>&amp;Casas decimais</translation>
    </message>
    <message>
        <source>&amp;Automatic</source>
        <translation>&amp;Automático</translation>
    </message>
    <message>
        <source>Enough decimals to tell the numbers shown apart (2 to 6)</source>
        <translation>Casas decimais bastantes para distinguir os números mostrados (de 2 a 6)</translation>
    </message>
    <message>
        <source>At least %1 decimals (more where a weight would read 0)</source>
        <translation>Ao menos %1 casas decimais (mais onde um peso apareceria como 0)</translation>
    </message>
    <message>
        <source>&amp;Presentation</source>
        <translation>A&amp;presentação</translation>
    </message>
    <message>
        <source>The open lesson full screen for a lecture hall: → or PageDown steps on (past the last step, to the next lesson), ← or PageUp back, L lists the lessons, B blacks the screen, Esc leaves</source>
        <translation>A lição aberta em tela cheia, para um auditório: → ou PageDown avançam (depois do último passo, para a próxima lição), ← ou PageUp voltam, L lista as lições, B apaga a tela, Esc sai</translation>
    </message>
    <message>
        <source>Present &amp;On</source>
        <translation>Apresentar &amp;na tela</translation>
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
        <source>&amp;Lessons</source>
        <translation>&amp;Lições</translation>
    </message>
    <message>
        <source>Guided lessons through every section of the documents</source>
        <translation>Lições guiadas por todas as seções dos documentos</translation>
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
        <extracomment>The panel a topic&apos;s preset is seen in: picking one brings it forward. The panels a model&apos;s sentence brings forward (in their groups, side by side).</extracomment>
        <translation>attnviz</translation>
    </message>
    <message>
        <source>Heatmap copied to the clipboard</source>
        <translation>Mapa de calor copiado para a área de transferência</translation>
    </message>
    <message>
        <source>n = %1 · d_k = %2</source>
        <translation>n = %1 · d_k = %2</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>A view could not follow the last change: %1</source>
        <extracomment>PySide6 builds that must not run on CPython &lt; 3.12. 6.12.0 returns None/True from void methods and Signal.emit without taking a reference; on 3.10/3.11 the counts reach zero after a few thousand calls and the interpreter aborts (&quot;bool_dealloc&quot;). pyproject.toml excludes it; this check covers environments assembled by hand.</extracomment>
        <translation>Uma visualização não conseguiu acompanhar a última alteração: %1</translation>
    </message>
    <message>
        <source>Sentences</source>
        <extracomment>The sentence presets in a reading order; any other shipped one follows, sorted. The RoPE presets in a reading order (the teaching head, then real models, then ALiBi). Item data of the first entry: what the document shows when it shows no preset.</extracomment>
        <translation>Frases</translation>
    </message>
    <message>
        <source>RoPE settings of real models</source>
        <translation>Configurações de RoPE de modelos reais</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>Modelo: %1</translation>
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
        <translation>&amp;Causal</translation>
    </message>
    <message>
        <source>each token sees only itself and earlier ones</source>
        <translation>cada token só vê a si mesmo e os anteriores</translation>
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
        <source>Chunked attention (Llama 4): the sentence is cut into chunks of this many tokens and a query sees only the keys of its own chunk</source>
        <translation>Atenção em blocos (Llama 4): a frase é cortada em blocos deste tamanho e cada consulta vê só as chaves do próprio bloco</translation>
    </message>
    <message>
        <source>C&amp;hunks</source>
        <translation>&amp;Blocos</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>chaves</translation>
    </message>
    <message>
        <source>to</source>
        <translation>a</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>Ocultar</translation>
    </message>
    <message>
        <source>Hide these keys from every query</source>
        <translation>Ocultar estas chaves de todas as consultas</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>Mostrar</translation>
    </message>
    <message>
        <source>Let every query see these keys again</source>
        <translation>Deixar todas as consultas verem estas chaves de novo</translation>
    </message>
    <message>
        <source>Show all</source>
        <translation>Mostrar todas</translation>
    </message>
    <message>
        <source>No key is hidden.</source>
        <translation>Nenhuma chave está oculta.</translation>
    </message>
    <message>
        <source>%1 of %2 keys hidden: %3</source>
        <translation>%1 de %2 chaves ocultas: %3</translation>
    </message>
    <message>
        <source>One causal pass trains %1 next-token predictions at once:</source>
        <translation>Uma passada causal treina %1 previsões de próximo token de uma só vez:</translation>
    </message>
    <message>
        <source>Document ids must be whole numbers ≥ 0, one per token</source>
        <translation>Os ids de documento devem ser números inteiros ≥ 0, um por token</translation>
    </message>
    <message>
        <source>%1 for %2: give one per token</source>
        <translation>%1 para %2: informe um por token</translation>
    </message>
    <message numerus="yes">
        <source>%n document id(s)</source>
        <translation>
            <numerusform>%n id de documento</numerusform>
            <numerusform>%n ids de documento</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MatrixView</name>
    <message>
        <source>masked: this key is hidden from this query</source>
        <extracomment>Colour stops from −m to +m (blue for negative, red for positive, as RdBu reversed). On a dark panel the neutral colour is dark too (a shade lighter than the panel, so a row of zeros still shows as cells), and magnitude brightens both ways. Labels longer than this are shortened (the tooltip gives them whole). Up to this many cells along a side, cells are sized for their numbers. Cells never show fewer decimals than this (unless fewer were asked for). The narrowest a numbered column may become (in pixels) before the layout scrolls. A title wider than the view wraps onto more lines (and does not widen the view) instead of being elided: a map whose title names a token and what was done.</extracomment>
        <translation>mascarada: esta chave está oculta para esta consulta</translation>
    </message>
</context>
<context>
    <name>MemoryFigure</name>
    <message>
        <source>all %1 layers</source>
        <translation>as %1 camadas</translation>
    </message>
    <message>
        <source>no window</source>
        <translation>sem janela</translation>
    </message>
    <message>
        <source>fp8</source>
        <extracomment>Width from which the decode chart stands beside the designs&apos; bars and the n² chart, in pixels: three columns of at least 330 (a slide, the window at full width). Each decode ceiling&apos;s row name (:func:`attnviz.core.decode.decode_ceilings`&apos; kinds).</extracomment>
        <translation>fp8</translation>
    </message>
    <message>
        <source>context n (tokens)</source>
        <extracomment>The decode chart&apos;s rows in the designs chart&apos;s order, then fp8 and the dense twin.</extracomment>
        <translation>contexto n (tokens)</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>bytes</translation>
    </message>
    <message>
        <source>A bandwidth-bound ceiling: generating one token at batch 1 reads every weight, the whole KV cache and the recurrent state once, so tokens/s ≤ bandwidth / bytes read</source>
        <translation>Um teto imposto pela largura de banda: gerar um token com lote 1 lê uma vez cada peso, todo o cache KV e o estado recorrente, então tokens/s ≤ largura de banda / bytes lidos</translation>
    </message>
    <message>
        <source>Tokens/s at %1: unknown without a parameter count</source>
        <translation>Tokens/s a %1: desconhecido sem a contagem de parâmetros</translation>
    </message>
    <message>
        <source>%1: each token reads %2 (%3 bytes) at %4 → %5 tokens/s</source>
        <translation>%1: cada token lê %2 (%3 bytes) a %4 → %5 tokens/s</translation>
    </message>
    <message>
        <source>Tokens/s at %1, batch 1 (decode ceiling)</source>
        <translation>Tokens/s a %1, lote 1 (teto da geração)</translation>
    </message>
    <message>
        <source>KV cache %1 of %2; weights unknown (no parameter count)</source>
        <translation>Cache KV %1 de %2; pesos desconhecidos (sem o número de parâmetros)</translation>
    </message>
    <message>
        <source>KV cache %1 + weights %2 = %3 of %4 (%5 %)</source>
        <translation>Cache KV %1 + pesos %2 = %3 de %4 (%5 %)</translation>
    </message>
    <message>
        <source>every context fits: the windows cap the cache</source>
        <translation>qualquer contexto cabe: as janelas limitam o cache</translation>
    </message>
    <message>
        <source>does not fit: the weights alone fill the GPU</source>
        <translation>não cabe: só os pesos já enchem a GPU</translation>
    </message>
    <message numerus="yes">
        <source>fits up to %n token(s)</source>
        <translation>
            <numerusform>cabe até %n token</numerusform>
            <numerusform>cabe até %n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>fits up to %n token(s) per sequence</source>
        <translation>
            <numerusform>cabe até %n token por sequência</numerusform>
            <numerusform>cabe até %n tokens por sequência</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n KV head(s)</source>
        <translation>
            <numerusform>%n cabeça KV</numerusform>
            <numerusform>%n cabeças KV</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2): %3 per token, %4 at the context</source>
        <translation>%1 (%2): %3 por token, %4 no contexto</translation>
    </message>
    <message numerus="yes">
        <source>KV cache at %n token(s) by attention design</source>
        <translation>
            <numerusform>Cache KV em %n token por arquitetura de atenção</numerusform>
            <numerusform>Cache KV em %n tokens por arquitetura de atenção</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n query head(s)</source>
        <translation>
            <numerusform>%n cabeça de consulta</numerusform>
            <numerusform>%n cabeças de consulta</numerusform>
        </translation>
    </message>
    <message>
        <source>%1, MLA latent %2 + %3</source>
        <translation>%1, latente MLA %2 + %3</translation>
    </message>
    <message>
        <source>%1, %2 (%3), head_dim %4</source>
        <translation>%1, %2 (%3), head_dim %4</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n camada</numerusform>
            <numerusform>%n camadas</numerusform>
        </translation>
    </message>
    <message>
        <source>%1, %2 with attention</source>
        <translation>%1, %2 com atenção</translation>
    </message>
    <message>
        <source>; × %1 × %2 = %3 in one pass</source>
        <translation>; × %1 × %2 = %3 numa passada</translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n cabeça</numerusform>
            <numerusform>%n cabeças</numerusform>
        </translation>
    </message>
    <message>
        <source>the other layers&apos; state %1 at any context</source>
        <translation>estado das outras camadas %1 em qualquer contexto</translation>
    </message>
    <message numerus="yes">
        <source>%n full-attention layer(s)</source>
        <translation>
            <numerusform>%n camada de atenção plena</numerusform>
            <numerusform>%n camadas de atenção plena</numerusform>
        </translation>
    </message>
    <message>
        <source> + %1</source>
        <translation> + %1</translation>
    </message>
    <message numerus="yes">
        <source>%n sliding-window layer(s)</source>
        <translation>
            <numerusform>%n camada de janela deslizante</numerusform>
            <numerusform>%n camadas de janela deslizante</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 per token</source>
        <translation>%1 por token</translation>
    </message>
    <message>
        <source>%1 per token (%2)</source>
        <translation>%1 por token (%2)</translation>
    </message>
    <message>
        <source>S at %1: %2, %3 in %4-bit, per head per layer</source>
        <translation>S em %1: %2, %3 em %4 bits, por cabeça e por camada</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entr(y|ies)</source>
        <translation>
            <numerusform>%n entrada</numerusform>
            <numerusform>%n entradas</numerusform>
        </translation>
    </message>
    <message>
        <source>weights %1</source>
        <translation>pesos %1</translation>
    </message>
    <message>
        <source>KV %1</source>
        <translation>KV %1</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>latent %1 + %2</source>
        <translation>latente %1 + %2</translation>
    </message>
    <message>
        <source>%1× the card</source>
        <translation>%1× a ficha</translation>
    </message>
    <message>
        <source>If all %1 layers had attention (the card: %2 of them): %3 bytes</source>
        <translation>Se todas as %1 camadas tivessem atenção (na ficha: %2 delas): %3 bytes</translation>
    </message>
    <message>
        <source>Without the %1-token window: %3 bytes</source>
        <translation>Sem a janela de %1 tokens: %3 bytes</translation>
    </message>
    <message>
        <source>S of one head, one layer: n²</source>
        <translation>S de uma cabeça, uma camada: n²</translation>
    </message>
    <message>
        <source>tiled kernel (FlashAttention): O(n)</source>
        <translation>kernel em blocos (FlashAttention): O(n)</translation>
    </message>
    <message>
        <source>, %1 with a %2-token window</source>
        <translation>, %1 com janela de %2 tokens</translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message>
        <source>bf16: 2 bytes per element</source>
        <extracomment>The GPUs offered in the picker, in GB (any other size can be typed). Memory bandwidths offered, in GB/s, with the GPU each is (any other can be typed).</extracomment>
        <translation>bf16: 2 bytes por elemento</translation>
    </message>
    <message>
        <source>fp16: 2 bytes per element</source>
        <translation>fp16: 2 bytes por elemento</translation>
    </message>
    <message>
        <source>fp8: 1 byte per element</source>
        <translation>fp8: 1 byte por elemento</translation>
    </message>
    <message>
        <source>fp32: 4 bytes per element</source>
        <translation>fp32: 4 bytes por elemento</translation>
    </message>
    <message>
        <source>int4: half a byte per element</source>
        <translation>int4: meio byte por elemento</translation>
    </message>
    <message>
        <source>Chapter 003, the KV cache and the price of O(n²): every token keeps its keys and values in every attention layer; GQA, MLA, windows and hybrids shrink them.</source>
        <translation>Capítulo 003, o cache KV e o preço de O(n²): cada token guarda suas chaves e valores em cada camada de atenção; GQA, MLA, janelas e híbridos os encolhem.</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modelo</translation>
    </message>
    <message>
        <source>Custom card</source>
        <translation>Ficha personalizada</translation>
    </message>
    <message>
        <source>A real model&apos;s attention shape, or your own card</source>
        <translation>A forma da atenção de um modelo real, ou a sua própria ficha</translation>
    </message>
    <message>
        <source>GPU memory in GB (10⁹ bytes): pick one or type a size</source>
        <translation>Memória da GPU em GB (10⁹ bytes): escolha uma ou digite um tamanho</translation>
    </message>
    <message>
        <source>GPU memory bandwidth in GB/s: 3,350 for an H100 SXM, 4,800 for an H200. It sets the decode ceiling: pick one or type a number</source>
        <translation>Largura de banda da memória da GPU em GB/s: 3.350 numa H100 SXM, 4.800 numa H200. Ela define o teto da geração: escolha uma ou digite um número</translation>
    </message>
    <message>
        <source>From config.json…</source>
        <translation>Do config.json…</translation>
    </message>
    <message>
        <source>Read layers, heads, KV heads, windows and MLA from a Hugging Face config</source>
        <translation>Ler camadas, cabeças, cabeças KV, janelas e MLA de uma config do Hugging Face</translation>
    </message>
    <message>
        <source>Edit the card</source>
        <translation>Editar a ficha</translation>
    </message>
    <message>
        <source>From the open model</source>
        <translation>Do modelo aberto</translation>
    </message>
    <message>
        <source>The card of the model opened with File → Open Model…</source>
        <translation>A ficha do modelo aberto em Arquivo → Abrir modelo…</translation>
    </message>
    <message>
        <source>FlashAttention&apos;s tiles →</source>
        <translation>Blocos do FlashAttention →</translation>
    </message>
    <message>
        <source>How a tiled kernel gets by with O(n) memory: the tiles panel, step by step</source>
        <translation>Como um kernel em blocos se vira com memória O(n): o painel de blocos, passo a passo</translation>
    </message>
    <message>
        <source>&amp;Context</source>
        <translation>&amp;Contexto</translation>
    </message>
    <message>
        <source>Tokens per sequence held in the cache</source>
        <translation>Tokens por sequência guardados no cache</translation>
    </message>
    <message>
        <source>batch </source>
        <translation>lote </translation>
    </message>
    <message>
        <source>Sequences served at once, each with its own cache</source>
        <translation>Sequências atendidas ao mesmo tempo, cada uma com seu próprio cache</translation>
    </message>
    <message>
        <source>Element type of the KV cache</source>
        <translation>Tipo de elemento do cache KV</translation>
    </message>
    <message>
        <source>Element type of the weights</source>
        <translation>Tipo de elemento dos pesos</translation>
    </message>
    <message>
        <source>cache</source>
        <translation>cache</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>pesos</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>bandwidth</source>
        <translation>banda</translation>
    </message>
    <message>
        <source>Custom: %1</source>
        <translation>Personalizada: %1</translation>
    </message>
    <message>
        <source>The heads panel&apos;s layer: %1 %2 of width %3 → %4 per token per layer (%5 with one KV head per query head); %6 at this context.</source>
        <translation>A camada do painel de cabeças: %1 %2 de largura %3 → %4 por token por camada (%5 com uma cabeça KV por cabeça de consulta); %6 neste contexto.</translation>
    </message>
    <message numerus="yes">
        <source>%n query head(s) (shares|share)</source>
        <translation>
            <numerusform>%n cabeça de consulta divide</numerusform>
            <numerusform>%n cabeças de consulta dividem</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n KV head(s)</source>
        <translation>
            <numerusform>%n cabeça KV</numerusform>
            <numerusform>%n cabeças KV</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU memory must be a number of GB, e.g. 80 or 141</source>
        <translation>A memória da GPU deve ser um número de GB, p. ex. 80 ou 141</translation>
    </message>
    <message>
        <source>The bandwidth must be a number of GB/s, e.g. 3350 or 4800</source>
        <translation>A largura de banda deve ser um número de GB/s, p. ex. 3350 ou 4800</translation>
    </message>
    <message>
        <source>Read a Hugging Face config.json</source>
        <translation>Ler um config.json do Hugging Face</translation>
    </message>
    <message>
        <source>Model configs (*.json);;All files (*)</source>
        <translation>Configurações de modelo (*.json);;Todos os arquivos (*)</translation>
    </message>
</context>
<context>
    <name>MixersPanel</name>
    <message>
        <source>softmax</source>
        <translation>softmax</translation>
    </message>
    <message>
        <source>sliding window</source>
        <translation>janela deslizante</translation>
    </message>
    <message>
        <source>top-k</source>
        <translation>top-k</translation>
    </message>
    <message>
        <source>strided</source>
        <translation>com passo</translation>
    </message>
    <message>
        <source>linear</source>
        <translation>linear</translation>
    </message>
    <message>
        <source>decayed (RetNet, Mamba-2)</source>
        <translation>com decaimento (RetNet, Mamba-2)</translation>
    </message>
    <message>
        <source>DeltaNet</source>
        <translation>DeltaNet</translation>
    </message>
    <message>
        <source>Gated DeltaNet</source>
        <translation>Gated DeltaNet</translation>
    </message>
    <message>
        <source>φ = elu + 1</source>
        <translation>φ = elu + 1</translation>
    </message>
    <message>
        <source>φ = ReLU</source>
        <translation>φ = ReLU</translation>
    </message>
    <message>
        <source>φ = identity</source>
        <translation>φ = identidade</translation>
    </message>
    <message>
        <source>The mixer whose matrix M is drawn</source>
        <translation>O misturador cuja matriz M é desenhada</translation>
    </message>
    <message>
        <source>n </source>
        <translation>n </translation>
    </message>
    <message>
        <source>Tokens of the head</source>
        <translation>Tokens da cabeça</translation>
    </message>
    <message>
        <source>d </source>
        <translation>d </translation>
    </message>
    <message>
        <source>Width of q, k, v: the state is d × d</source>
        <translation>Largura de q, k, v: o estado é d × d</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>semente </translation>
    </message>
    <message>
        <source>Another draw of q, k and v</source>
        <translation>Outro sorteio de q, k e v</translation>
    </message>
    <message>
        <source>recall up to </source>
        <translation>recordar até </translation>
    </message>
    <message>
        <source>The most key–value pairs the recall experiment writes</source>
        <translation>O máximo de pares chave–valor que o experimento de recordação grava</translation>
    </message>
    <message>
        <source>t = </source>
        <translation>t = </translation>
    </message>
    <message>
        <source>The token generated (1 … n)</source>
        <translation>O token gerado (1 … n)</translation>
    </message>
    <message>
        <source>The token generated: ←/→ step one token</source>
        <translation>O token gerado: ←/→ avançam um token</translation>
    </message>
    <message>
        <source>One token back</source>
        <translation>Um token para trás</translation>
    </message>
    <message>
        <source>One token more</source>
        <translation>Um token a mais</translation>
    </message>
    <message>
        <source>window </source>
        <translation>janela </translation>
    </message>
    <message>
        <source>Keys a row sees, itself included</source>
        <translation>Chaves que uma linha vê, ela mesma incluída</translation>
    </message>
    <message>
        <source>FLOPs and bytes of this one step (cache or state read, new entries written), and of running the head over the whole prefix again without a cache.</source>
        <translation>FLOPs e bytes deste passo (cache ou estado lido, novas entradas escritas), e de rodar a cabeça de novo sobre todo o prefixo sem cache.</translation>
    </message>
    <message>
        <source>layers L = </source>
        <translation>camadas L = </translation>
    </message>
    <message>
        <source>Window layers stacked</source>
        <translation>Camadas de janela empilhadas</translation>
    </message>
    <message>
        <source>window w = </source>
        <translation>janela w = </translation>
    </message>
    <message>
        <source>token t = </source>
        <translation>token t = </translation>
    </message>
    <message>
        <source>The token whose reach is drawn</source>
        <translation>O token cujo alcance é desenhado</translation>
    </message>
    <message>
        <source>KV cache (softmax): %1 of %2 tokens</source>
        <translation>Cache KV (softmax): %1 de %2 tokens</translation>
    </message>
    <message>
        <source>Ring (window): %1 slots, token %2 in slot %3</source>
        <translation>Anel (janela): %1 posições, token %2 na posição %3</translation>
    </message>
    <message>
        <source>%1: a fixed %2 × %2 state</source>
        <translation>%1: um estado fixo de %2 × %2</translation>
    </message>
    <message>
        <source>Token %1: softmax reads %2 of cache, the window %3; %4 reads and writes %5 of state at every step. Without a cache token %1 reruns the prefix: %6× softmax&apos;s FLOPs.</source>
        <translation>Token %1: a softmax lê %2 de cache, a janela %3; %4 lê e escreve %5 de estado a cada passo. Sem cache, o token %1 refaz o prefixo: %6× os FLOPs da softmax.</translation>
    </message>
    <message>
        <source>this step</source>
        <translation>este passo</translation>
    </message>
    <message>
        <source>no cache</source>
        <translation>sem cache</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>camada %1</translation>
    </message>
    <message>
        <source>token</source>
        <translation>token</translation>
    </message>
    <message>
        <source>position</source>
        <translation>posição</translation>
    </message>
    <message>
        <source>A window of %1 keys, itself included, adds %2 tokens of reach a layer: through %3 layers token %4 reaches back (%1 − 1)·%3 = %5 tokens, to position %6 (composed masks).</source>
        <translation>Uma janela de %1 chaves, incluindo o próprio token, acrescenta %2 tokens de alcance por camada: através de %3 camadas o token %4 alcança (%1 − 1)·%3 = %5 tokens para trás, até a posição %6 (máscaras compostas).</translation>
    </message>
    <message>
        <source> The first token is reached: %1 tokens are all there are.</source>
        <translation> O primeiro token é alcançado: só existem %1 tokens.</translation>
    </message>
    <message>
        <source>M and costs</source>
        <extracomment>The settings each kind reads (the others are greyed out while it is drawn). The kinds that drop causal pairs (their kept pairs are the nonzero weights of M). The kinds of the recall plot: softmax and the ones whose state does not grow with n.</extracomment>
        <translation>M e custos</translation>
    </message>
    <message>
        <source>Every mixer</source>
        <translation>Todos os misturadores</translation>
    </message>
    <message>
        <source>Recall</source>
        <translation>Recuperação</translation>
    </message>
    <message>
        <source>Matrices</source>
        <translation>Matrizes</translation>
    </message>
    <message>
        <source>Decoding</source>
        <translation>Decodificação</translation>
    </message>
    <message>
        <source>Depth</source>
        <translation>Profundidade</translation>
    </message>
    <message>
        <source>k </source>
        <translation>k </translation>
    </message>
    <message>
        <source>The largest scores a row keeps</source>
        <translation>As maiores pontuações que uma linha mantém</translation>
    </message>
    <message>
        <source>stride </source>
        <translation>passo </translation>
    </message>
    <message>
        <source>The l nearest keys and every l-th one before them</source>
        <translation>As l chaves mais próximas e uma a cada l antes delas</translation>
    </message>
    <message>
        <source>Linear attention&apos;s feature map</source>
        <translation>O mapa de atributos da atenção linear</translation>
    </message>
    <message>
        <source>normalised</source>
        <translation>normalizada</translation>
    </message>
    <message>
        <source>Divide each row by Σ φ(q)·φ(k)</source>
        <translation>Divide cada linha por Σ φ(q)·φ(k)</translation>
    </message>
    <message>
        <source>γ </source>
        <translation>γ </translation>
    </message>
    <message>
        <source>Decay per step</source>
        <translation>Decaimento por passo</translation>
    </message>
    <message>
        <source>β </source>
        <translation>β </translation>
    </message>
    <message>
        <source>The delta rule&apos;s writing strength</source>
        <translation>A força de escrita da regra delta</translation>
    </message>
    <message>
        <source>α </source>
        <translation>α </translation>
    </message>
    <message>
        <source>Gated DeltaNet&apos;s forgetting gate</source>
        <translation>A porta de esquecimento do Gated DeltaNet</translation>
    </message>
    <message>
        <source>tokens n</source>
        <translation>tokens n</translation>
    </message>
    <message>
        <source>FLOPs or bytes</source>
        <translation>FLOPs ou bytes</translation>
    </message>
    <message>
        <source>key–value pairs written</source>
        <translation>pares chave–valor gravados</translation>
    </message>
    <message>
        <source>pairs recalled</source>
        <translation>recuperados</translation>
    </message>
    <message>
        <source>M of %1: out_t = Σ_s M[t, s] v_s</source>
        <translation>M de %1: out_t = Σ_s M[t, s] v_s</translation>
    </message>
    <message>
        <source>mixer</source>
        <translation>misturador</translation>
    </message>
    <message>
        <source>error vs softmax</source>
        <translation>erro ante softmax</translation>
    </message>
    <message>
        <source>pairs kept</source>
        <translation>pares mantidos</translation>
    </message>
    <message>
        <source>state at n = %1</source>
        <translation>estado em n = %1</translation>
    </message>
    <message>
        <source>state at 128k tokens</source>
        <translation>estado em 128k tokens</translation>
    </message>
    <message>
        <source>State: numbers a head holds, KV cache (2·d per token) or a d × d matrix.</source>
        <translation>Estado: números que uma cabeça guarda, cache KV (2·d por token) ou uma matriz d × d.</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>bytes</translation>
    </message>
    <message>
        <source>Softmax reads the whole cache: its FLOPs and bytes grow as n².</source>
        <translation>O softmax lê o cache inteiro: seus FLOPs e bytes crescem como n².</translation>
    </message>
    <message>
        <source>It is never cheaper than softmax up to 128k tokens.</source>
        <translation>Ele nunca sai mais barato que o softmax até 128k tokens.</translation>
    </message>
    <message>
        <source>Cheaper than softmax from n = %1 tokens in FLOPs, %2 in bytes (○).</source>
        <translation>Mais barato que o softmax a partir de n = %1 tokens em FLOPs, %2 em bytes (○).</translation>
    </message>
    <message>
        <source>%1: output error %2 against dense softmax, %3 % of the causal pairs kept, %4 numbers of state after %5 tokens (softmax&apos;s KV cache: %6). %7</source>
        <translation>%1: erro de saída %2 ante o softmax denso, %3 % dos pares causais mantidos, %4 números de estado após %5 tokens (cache KV do softmax: %6). %7</translation>
    </message>
    <message>
        <source>M[%1, %2] = %3: token %1 takes this much of v_%2</source>
        <translation>M[%1, %2] = %3: o token %1 toma esta parte de v_%2</translation>
    </message>
</context>
<context>
    <name>ModelController</name>
    <message>
        <source>Checking the folder…</source>
        <extracomment>What the progress dialog says at each stage of :func:`attnviz.core.hf_capture.load_model`.</extracomment>
        <translation>Verificando a pasta…</translation>
    </message>
    <message>
        <source>Starting transformers and torch…</source>
        <translation>Iniciando transformers e torch…</translation>
    </message>
    <message>
        <source>Reading the tokenizer…</source>
        <translation>Lendo o tokenizador…</translation>
    </message>
    <message>
        <source>Loading the weights…</source>
        <translation>Carregando os pesos…</translation>
    </message>
    <message>
        <source>Running the sentence through the model…</source>
        <translation>Passando a frase pelo modelo…</translation>
    </message>
    <message>
        <source>Checking every head against the model&apos;s own weights…</source>
        <translation>Conferindo cada cabeça com os pesos do próprio modelo…</translation>
    </message>
    <message>
        <source>Open &amp;Model…</source>
        <translation>Abrir &amp;modelo…</translation>
    </message>
    <message>
        <source>Open a local Hugging Face model folder and explore its real heads</source>
        <translation>Abra uma pasta local de modelo Hugging Face e explore suas cabeças reais</translation>
    </message>
    <message>
        <source>Opening a model needs transformers: %1</source>
        <translation>Abrir um modelo requer transformers: %1</translation>
    </message>
    <message>
        <source>Memory Card from This Model</source>
        <translation>Ficha de memória deste modelo</translation>
    </message>
    <message>
        <source>Fill the memory panel&apos;s card from the open model&apos;s config.json</source>
        <translation>Preenche a ficha do painel de memória com o config.json do modelo aberto</translation>
    </message>
    <message>
        <source>&amp;Train Induction Heads…</source>
        <translation>&amp;Treinar cabeças de indução…</translation>
    </message>
    <message>
        <source>Train a small decoder until induction heads form, watching its curves</source>
        <translation>Treina um decodificador pequeno até que as cabeças de indução se formem, acompanhando as curvas</translation>
    </message>
    <message>
        <source>The head left the model: its edited values are a what-if, no longer what the model computes. Pick a head in Layers to go back.</source>
        <translation>A cabeça saiu do modelo: os valores editados são uma hipótese, não mais o que o modelo calcula. Escolha uma cabeça em Camadas para voltar.</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>Abrir uma pasta de modelo</translation>
    </message>
    <message>
        <source>No model is open: File → Open Model…</source>
        <translation>Nenhum modelo aberto: Arquivo → Abrir modelo…</translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>Abrir modelo</translation>
    </message>
    <message>
        <source>layer %1 of %2</source>
        <translation>camada %1 de %2</translation>
    </message>
    <message>
        <source>about %1 s left</source>
        <translation>faltam cerca de %1 s</translation>
    </message>
    <message>
        <source>%1: %2, %3 × %4; loaded in %5 s, sentence in %6 ms</source>
        <translation>%1: %2, %3 × %4; carregado em %5 s, frase em %6 ms</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n camada</numerusform>
            <numerusform>%n camadas</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n cabeça</numerusform>
            <numerusform>%n cabeças</numerusform>
        </translation>
    </message>
    <message>
        <source>Memory card: %1</source>
        <translation>Ficha de memória: %1</translation>
    </message>
</context>
<context>
    <name>OverviewPanel</name>
    <message>
        <source>content</source>
        <translation>conteúdo</translation>
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
        <source>random</source>
        <translation>aleatória</translation>
    </message>
    <message>
        <source>model</source>
        <translation>modelo</translation>
    </message>
    <message>
        <source>Equal words attend to each other: passages of 1,024 tokens</source>
        <translation>Palavras iguais prestam atenção umas às outras: trechos de 1.024 tokens</translation>
    </message>
    <message>
        <source>Each query attends to the token before it</source>
        <translation>Cada consulta presta atenção ao token anterior</translation>
    </message>
    <message>
        <source>Weights fall with the distance |i − j|</source>
        <translation>Os pesos caem com a distância |i − j|</translation>
    </message>
    <message>
        <source>Random q and k: an untrained head</source>
        <translation>q e k aleatórios: uma cabeça não treinada</translation>
    </message>
    <message>
        <source>mean of the block</source>
        <translation>média do bloco</translation>
    </message>
    <message>
        <source>max of the block</source>
        <translation>máximo do bloco</translation>
    </message>
    <message>
        <source>largest |M| of the block</source>
        <extracomment>The reduce box&apos;s &quot;max&quot; at a mixing head: M is signed, its cell the entry farthest from 0.</extracomment>
        <translation>maior |M| do bloco</translation>
    </message>
    <message>
        <source>Chapter 003, the price of n²: every weight of a long sequence, mapped without the n×n matrix. Drag a rectangle or scroll to zoom down to the exact weights.</source>
        <extracomment>Decades of weight the log colour scale spans below the largest one shown. None: compute in place when the panel is its own window (an offscreen export).</extracomment>
        <translation>Capítulo 003, o preço de n²: todos os pesos de uma sequência longa, mapeados sem a matriz n×n. Arraste um retângulo ou role para aproximar até os pesos exatos.</translation>
    </message>
    <message>
        <source>Tokens in the sequence (n)</source>
        <translation>Tokens na sequência (n)</translation>
    </message>
    <message>
        <source>Width of queries and keys</source>
        <translation>Largura das consultas e chaves</translation>
    </message>
    <message>
        <source>Which synthetic head makes q and k</source>
        <translation>Qual cabeça sintética gera q e k</translation>
    </message>
    <message>
        <source>Seed of the synthetic head</source>
        <translation>Semente da cabeça sintética</translation>
    </message>
    <message>
        <source>Cells per side of the map</source>
        <translation>Células por lado do mapa</translation>
    </message>
    <message>
        <source>What one map cell shows</source>
        <translation>O que cada célula do mapa mostra</translation>
    </message>
    <message>
        <source>Causal</source>
        <translation>Causal</translation>
    </message>
    <message>
        <source>A query sees only earlier keys</source>
        <translation>Uma consulta só vê as chaves anteriores</translation>
    </message>
    <message>
        <source>÷ √d_k</source>
        <translation>÷ √d_k</translation>
    </message>
    <message>
        <source>Divide the scores by √d_k</source>
        <translation>Dividir as pontuações por √d_k</translation>
    </message>
    <message>
        <source>Log colours</source>
        <translation>Cores em log</translation>
    </message>
    <message>
        <source>Colour by log₁₀ of the weight: small weights stay visible</source>
        <translation>Colorir pelo log₁₀ do peso: pesos pequenos continuam visíveis</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>Whole map</source>
        <translation>Mapa inteiro</translation>
    </message>
    <message>
        <source>Zoom out to the whole sequence (Home)</source>
        <translation>Afastar até a sequência inteira (Home)</translation>
    </message>
    <message>
        <source>n</source>
        <translation>n</translation>
    </message>
    <message>
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>Cabeça</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Semente</translation>
    </message>
    <message>
        <source>Cells</source>
        <translation>Células</translation>
    </message>
    <message>
        <source>Cell</source>
        <translation>Célula</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Precisão</translation>
    </message>
    <message>
        <source>Computing the map… %1%</source>
        <translation>Calculando o mapa… %1%</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>Calcular</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Cancelado</translation>
    </message>
    <message>
        <source>Not computed</source>
        <translation>Não calculado</translation>
    </message>
    <message>
        <source>Not enough memory: %1</source>
        <translation>Memória insuficiente: %1</translation>
    </message>
    <message>
        <source>Map ready in %1 s</source>
        <translation>Mapa pronto em %1 s</translation>
    </message>
    <message>
        <source>Map: %1, %2 tokens in %3 s</source>
        <translation>Mapa: %1, %2 tokens em %3 s</translation>
    </message>
    <message>
        <source>M (%1)</source>
        <translation>M (%1)</translation>
    </message>
    <message>
        <source>log₁₀ weight</source>
        <translation>log₁₀ do peso</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>peso</translation>
    </message>
    <message>
        <source>query (token)</source>
        <translation>consulta (token)</translation>
    </message>
    <message>
        <source>The real model&apos;s head the heatmap shows (its layer and head), with its own mask, scale and score terms: its sentence sets n. A hybrid&apos;s Gated DeltaNet, Mamba-2, … head is drawn as its proven mixing matrix M</source>
        <translation>A cabeça do modelo real que o mapa de calor mostra (sua camada e cabeça), com sua própria máscara, escala e termos de pontuação: a frase define n. A cabeça Gated DeltaNet, Mamba-2, … de um híbrido é desenhada como sua matriz de mistura M, comprovada</translation>
    </message>
    <message>
        <source>key (token)</source>
        <translation>chave (token)</translation>
    </message>
    <message>
        <source>M is signed: log colours do not apply to it</source>
        <translation>M tem sinal: as cores em escala log não se aplicam a ela</translation>
    </message>
    <message>
        <source>%1 (layer %2, head %3)</source>
        <translation>%1 (camada %2, cabeça %3)</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>média</translation>
    </message>
    <message>
        <source>max</source>
        <translation>máximo</translation>
    </message>
    <message>
        <source>%1 tokens, %2 head: each cell the %3 of a %4 × %5 block of weights</source>
        <translation>%1 tokens, cabeça “%2”: em cada célula, %3 de um bloco de %4 × %5 pesos</translation>
    </message>
    <message>
        <source>Working memory ≈ %1: M has %2 entries in float64 (%3), with its building and the layer&apos;s capture</source>
        <translation>Memória de trabalho ≈ %1: M tem %2 entradas em float64 (%3), com sua construção e a captura da camada</translation>
    </message>
    <message>
        <source>%1 · layer %2, head %3, %4</source>
        <translation>%1 · camada %2, cabeça %3, %4</translation>
    </message>
    <message>
        <source>%1 tokens, %2; %3: M itself, exact</source>
        <translation>%1 tokens, %2; %3: a própria M, exata</translation>
    </message>
    <message>
        <source>%1 tokens, %2: each cell one entry of M</source>
        <translation>%1 tokens, %2: cada célula é uma entrada de M</translation>
    </message>
    <message>
        <source>%1 tokens, %2: each cell the mean of a %3 × %4 block of M</source>
        <translation>%1 tokens, %2: cada célula é a média de um bloco de %3 × %4 de M</translation>
    </message>
    <message>
        <source>%1 tokens, %2: each cell the entry of largest |M| in a %3 × %4 block, signed</source>
        <translation>%1 tokens, %2: cada célula é a entrada de maior |M| num bloco de %3 × %4, com sinal</translation>
    </message>
    <message>
        <source>(computing…)</source>
        <translation>(calculando…)</translation>
    </message>
    <message>
        <source>query %1, key %2: M = %3</source>
        <translation>consulta %1, chave %2: M = %3</translation>
    </message>
    <message>
        <source>queries %1–%2, keys %3–%4: mean M = %5</source>
        <translation>consultas %1–%2, chaves %3–%4: M média = %5</translation>
    </message>
    <message>
        <source>queries %1–%2, keys %3–%4: entry of largest |M| = %5</source>
        <translation>consultas %1–%2, chaves %3–%4: entrada de maior |M| = %5</translation>
    </message>
    <message>
        <source>queries %1–%2 × keys %3–%4</source>
        <translation>consultas %1–%2 × chaves %3–%4</translation>
    </message>
    <message>
        <source>%1 tokens, %2 head; %3: the exact weights</source>
        <translation>%1 tokens, cabeça “%2”; %3: os pesos exatos</translation>
    </message>
    <message>
        <source>%1 tokens, %2 head; %3: each cell the %4 of a %5 × %6 block</source>
        <translation>%1 tokens, cabeça “%2”; %3: em cada célula, %4 de um bloco %5 × %6</translation>
    </message>
    <message>
        <source>Working memory ≈ %1; the n×n matrix would take %2 in float32 · %3 scores, %4 multiply-adds</source>
        <translation>Memória de trabalho ≈ %1; a matriz n×n ocuparia %2 em float32 · %3 pontuações, %4 multiplicações-somas</translation>
    </message>
    <message>
        <source>about a second or less on this machine&apos;s CPU</source>
        <translation>cerca de um segundo ou menos na CPU desta máquina</translation>
    </message>
    <message>
        <source>about %1 s on this machine&apos;s CPU</source>
        <translation>cerca de %1 s na CPU desta máquina</translation>
    </message>
    <message>
        <source>about %1 min on this machine&apos;s CPU</source>
        <translation>cerca de %1 min na CPU desta máquina</translation>
    </message>
    <message>
        <source>query %1, key %2: weight %3</source>
        <translation>consulta %1, chave %2: peso %3</translation>
    </message>
    <message>
        <source>queries %1–%2, keys %3–%4: %5 weight %6</source>
        <translation>consultas %1–%2, chaves %3–%4: %5 dos pesos %6</translation>
    </message>
</context>
<context>
    <name>Panel</name>
    <message>
        <source>Computing…</source>
        <extracomment>The panel&apos;s row of :data:`attnviz.model.panels.PANELS`. What the mouse rests on, with its exact value, for the status bar (&quot;&quot; when it leaves); a panel with values under the mouse emits it. The cell (row, column) the mouse rests on, (-1, -1) when none: the presenter&apos;s pointer spotlights it (:meth:`highlight`). What a picture of the panel shows (set it to the part under the controls). The results last drawn (None before the first).</extracomment>
        <translation>Calculando…</translation>
    </message>
</context>
<context>
    <name>Panels</name>
    <message>
        <source>Tokens and vectors</source>
        <translation>Tokens e vetores</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>Controles</translation>
    </message>
    <message>
        <source>Attention matrix</source>
        <translation>Matriz de atenção</translation>
    </message>
    <message>
        <source>Steps for one query</source>
        <translation>Passo a passo de uma consulta</translation>
    </message>
    <message>
        <source>Positions (RoPE)</source>
        <translation>Posições (RoPE)</translation>
    </message>
    <message>
        <source>Gradient</source>
        <translation>Gradiente</translation>
    </message>
    <message>
        <source>KV-cache memory</source>
        <translation>Memória do cache KV</translation>
    </message>
    <message>
        <source>Gradient reach</source>
        <translation>Alcance do gradiente</translation>
    </message>
    <message>
        <source>Embedding table</source>
        <translation>Tabela de embeddings</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>Cabeças</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Camadas</translation>
    </message>
    <message>
        <source>Long sequence</source>
        <translation>Sequência longa</translation>
    </message>
    <message>
        <source>FlashAttention</source>
        <translation>FlashAttention</translation>
    </message>
    <message>
        <source>Entropy per row</source>
        <translation>Entropia por linha</translation>
    </message>
    <message>
        <source>Why it attends</source>
        <translation>Por que presta atenção</translation>
    </message>
    <message>
        <source>Score spread and d_k</source>
        <translation>Dispersão dos scores e d_k</translation>
    </message>
    <message>
        <source>Token mixers</source>
        <translation>Misturadores de tokens</translation>
    </message>
    <message>
        <source>Prediction</source>
        <translation>Predição</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Treino</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>Lições</translation>
    </message>
</context>
<context>
    <name>PictureForm</name>
    <message>
        <source>Custom</source>
        <extracomment>(width, height) offered; None = custom.</extracomment>
        <translation>Personalizado</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Claro</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Escuro</translation>
    </message>
</context>
<context>
    <name>PositionsPanel</name>
    <message>
        <source>plain RoPE</source>
        <translation>RoPE simples</translation>
    </message>
    <message>
        <source>position interpolation (linear)</source>
        <translation>interpolação de posições (linear)</translation>
    </message>
    <message>
        <source>NTK-aware</source>
        <translation>NTK-aware</translation>
    </message>
    <message>
        <source>dynamic NTK</source>
        <translation>NTK dinâmico</translation>
    </message>
    <message>
        <source>Llama 3</source>
        <translation>Llama 3</translation>
    </message>
    <message>
        <source>YaRN</source>
        <translation>YaRN</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>mantidos</translation>
    </message>
    <message>
        <source>slowed by the factor</source>
        <translation>desacelerados pelo fator</translation>
    </message>
    <message>
        <source>blended</source>
        <translation>mesclados</translation>
    </message>
    <message>
        <source>Chapter 003, positions: each pair of dimensions turns like a clock hand, m·θ per position; the score sees only the angle between query and key.</source>
        <extracomment>How the pairs of the chosen method are marked on the extension plot (Okabe–Ito index). Milliseconds between frames of the position animation. A docked panel shorter than this many lines of its font hides its settings at first.</extracomment>
        <translation>Capítulo 003, posições: cada par de dimensões gira como o ponteiro de um relógio, m·θ por posição; a pontuação só vê o ângulo entre consulta e chave.</translation>
    </message>
    <message>
        <source>Relative position</source>
        <translation>Posição relativa</translation>
    </message>
    <message>
        <source>Context extension</source>
        <translation>Extensão de contexto</translation>
    </message>
    <message>
        <source>Settings of a real model or of a small teaching head</source>
        <translation>Configurações de um modelo real ou de uma pequena cabeça didática</translation>
    </message>
    <message>
        <source>Rotated width of one head: head_dim / 2 clock hands</source>
        <translation>Largura girada de uma cabeça: head_dim / 2 ponteiros de relógio</translation>
    </message>
    <message>
        <source>θ_i = base^(−2i/head_dim): a larger base, slower hands</source>
        <translation>θ_i = base^(−2i/head_dim): base maior, ponteiros mais lentos</translation>
    </message>
    <message>
        <source>How the frequencies are rescaled to reach a longer context</source>
        <translation>Como as frequências são reescalonadas para alcançar um contexto mais longo</translation>
    </message>
    <message>
        <source>How many times longer the new context is</source>
        <translation>Quantas vezes o novo contexto é mais longo</translation>
    </message>
    <message>
        <source>The context the model was trained at</source>
        <translation>O contexto com que o modelo foi treinado</translation>
    </message>
    <message>
        <source>Llama 3: wavelengths above original/low are slowed</source>
        <translation>Llama 3: comprimentos de onda acima de original/baixo são desacelerados</translation>
    </message>
    <message>
        <source>Llama 3: wavelengths below original/high are kept</source>
        <translation>Llama 3: comprimentos de onda abaixo de original/alto são mantidos</translation>
    </message>
    <message>
        <source>YaRN: pairs turning more often than this are kept</source>
        <translation>YaRN: pares que dão mais voltas que isto são mantidos</translation>
    </message>
    <message>
        <source>YaRN: pairs turning less often than this are slowed</source>
        <translation>YaRN: pares que dão menos voltas que isto são desacelerados</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Ajustes</translation>
    </message>
    <message>
        <source>Show or hide the fields below the preset (scaling, base, head_dim, …). In a short dock they start hidden, so the dial and the plots keep their room</source>
        <translation>Mostra ou oculta os campos abaixo do exemplo (escala, base, head_dim, …). Num painel baixo eles começam ocultos, para que o relógio e os gráficos tenham espaço</translation>
    </message>
    <message>
        <source>off</source>
        <translation>desligado</translation>
    </message>
    <message>
        <source>Draw ALiBi beside RoPE: no rotation, each score loses slope·|m − n| (BLOOM&apos;s 8 heads use 1/2, 1/4, … 1/256). Off: not drawn</source>
        <translation>Desenhar o ALiBi ao lado do RoPE: sem rotação, cada pontuação perde inclinação·|m − n| (as 8 cabeças do BLOOM usam 1/2, 1/4, … 1/256). Desligado: não desenhado</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>Escala</translation>
    </message>
    <message>
        <source>Factor</source>
        <translation>Fator</translation>
    </message>
    <message>
        <source>Trained at</source>
        <translation>Treinado com</translation>
    </message>
    <message>
        <source>head_dim</source>
        <translation>head_dim</translation>
    </message>
    <message>
        <source>Base</source>
        <translation>Base</translation>
    </message>
    <message>
        <source>ALiBi slope</source>
        <translation>Inclinação ALiBi</translation>
    </message>
    <message>
        <source>low</source>
        <translation>baixo</translation>
    </message>
    <message>
        <source>high</source>
        <translation>alto</translation>
    </message>
    <message>
        <source>β fast</source>
        <translation>β rápido</translation>
    </message>
    <message>
        <source>β slow</source>
        <translation>β lento</translation>
    </message>
    <message>
        <source>Query position &amp;m</source>
        <translation>Posição da consulta &amp;m</translation>
    </message>
    <message>
        <source>Drag to turn every hand: fast pairs spin, slow ones creep</source>
        <translation>Arraste para girar todos os ponteiros: os pares rápidos rodopiam, os lentos mal se mexem</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Reproduzir</translation>
    </message>
    <message>
        <source>Move the query one position at a time (Space)</source>
        <translation>Avançar a consulta uma posição por vez (Space)</translation>
    </message>
    <message>
        <source>Position of the key whose hands are drawn short</source>
        <translation>Posição da chave cujos ponteiros são desenhados curtos</translation>
    </message>
    <message>
        <source>shift </source>
        <translation>desloc. </translation>
    </message>
    <message>
        <source>The relative curves are drawn again with both positions shifted by this</source>
        <translation>As curvas relativas são desenhadas de novo com as duas posições deslocadas por este valor</translation>
    </message>
    <message>
        <source>m − n (query position minus key position)</source>
        <translation>m − n (posição da consulta menos posição da chave)</translation>
    </message>
    <message>
        <source>q_m · k_n</source>
        <translation>q_m · k_n</translation>
    </message>
    <message>
        <source>dimension pair i (fast → slow)</source>
        <translation>par de dimensões i (rápido → lento)</translation>
    </message>
    <message>
        <source>wavelength (tokens)</source>
        <translation>comprimento de onda (tokens)</translation>
    </message>
    <message>
        <source>Exact value: %1</source>
        <translation>Valor exato: %1</translation>
    </message>
    <message>
        <source>key at n = %1</source>
        <translation>chave em n = %1</translation>
    </message>
    <message>
        <source>ALiBi: q·k − %1·|m − n|</source>
        <translation>ALiBi: q·k − %1·|m − n|</translation>
    </message>
    <message>
        <source>dashed: the original context</source>
        <translation>tracejado: o contexto original</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1, %2</translation>
    </message>
    <message numerus="yes">
        <source>%n pair(s)</source>
        <translation>
            <numerusform>%n par</numerusform>
            <numerusform>%n pares</numerusform>
        </translation>
    </message>
    <message>
        <source>context %1 → %2 tokens</source>
        <translation>contexto %1 → %2 tokens</translation>
    </message>
    <message>
        <source>attention factor %1</source>
        <translation>fator de atenção %1</translation>
    </message>
    <message>
        <source>m − n = %1</source>
        <translation>m − n = %1</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausar</translation>
    </message>
</context>
<context>
    <name>PredictionPanel</name>
    <message>
        <source>zero</source>
        <translation>zero</translation>
    </message>
    <message>
        <source>clean mean</source>
        <translation>média limpa</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>probabilidade</translation>
    </message>
    <message>
        <source>token</source>
        <translation>token</translation>
    </message>
    <message>
        <source>clean</source>
        <translation>limpa</translation>
    </message>
    <message>
        <source>intervened (heads or links off)</source>
        <translation>com intervenção (cabeças ou ligações desligadas)</translation>
    </message>
    <message>
        <source>T </source>
        <translation>T </translation>
    </message>
    <message>
        <source>Temperature: the logits are divided by it</source>
        <translation>Temperatura: os logits são divididos por ela</translation>
    </message>
    <message>
        <source>top-k </source>
        <translation>top-k </translation>
    </message>
    <message>
        <source>top-k off</source>
        <translation>top-k desligado</translation>
    </message>
    <message>
        <source>Keep only the k most likely tokens (0: off)</source>
        <translation>Manter só os k tokens mais prováveis (0: desligado)</translation>
    </message>
    <message>
        <source>top-p </source>
        <translation>top-p </translation>
    </message>
    <message>
        <source>Keep the fewest most likely tokens whose mass reaches p (1: off)</source>
        <translation>Manter os menos tokens mais prováveis cuja massa alcança p (1: desligado)</translation>
    </message>
    <message>
        <source>position </source>
        <translation>posição </translation>
    </message>
    <message>
        <source>last token / [MASK]</source>
        <translation>último token / [MASK]</translation>
    </message>
    <message>
        <source>The token whose next token is predicted (an encoder: the masked one)</source>
        <translation>O token cujo próximo token é previsto (num codificador: o mascarado)</translation>
    </message>
    <message>
        <source>tokens </source>
        <extracomment>Bytes of a cached element: attnviz runs a model in float32. Steps of the KV-cache bar.</extracomment>
        <translation>tokens </translation>
    </message>
    <message>
        <source>Tokens one Generate appends to the model&apos;s sentence</source>
        <translation>Tokens que um Gerar acrescenta à frase do modelo</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>semente </translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>guloso</translation>
    </message>
    <message>
        <source>Greedy: the most likely token; a seed: sampled from the distribution the bars show (numpy&apos;s Generator), the same tokens for the same seed</source>
        <translation>Guloso: o token mais provável; uma semente: amostrado da distribuição que as barras mostram (o Generator do numpy), os mesmos tokens para a mesma semente</translation>
    </message>
    <message>
        <source>&amp;Generate</source>
        <translation>&amp;Gerar</translation>
    </message>
    <message>
        <source>Append the next tokens to the sentence (undoable); it is captured again</source>
        <translation>Acrescentar os próximos tokens à frase (pode ser desfeito); ela é capturada de novo</translation>
    </message>
    <message>
        <source>The key and value cache a decoder keeps for the sentence (its softmax layers&apos; K and V of every token, a sliding layer&apos;s only within its window), in float32 as attnviz runs the model: it grows with each generated token. attnviz itself runs the whole sentence again for each token, to prove what it shows.</source>
        <translation>O cache de chaves e valores que um decodificador guarda para a frase (K e V de cada token nas suas camadas softmax; numa camada de janela deslizante, só dentro da janela), em float32, como o attnviz executa o modelo: cresce a cada token gerado. O próprio attnviz executa a frase inteira de novo a cada token, para provar o que mostra.</translation>
    </message>
    <message>
        <source>Compute the map</source>
        <extracomment>A failure message&apos;s leading exception name (&quot;PredictionError: …&quot;): the line says it all.</extracomment>
        <translation>Calcular o mapa</translation>
    </message>
    <message>
        <source>Not computed</source>
        <translation>Não calculado</translation>
    </message>
    <message>
        <source>show all</source>
        <extracomment>Bars drawn: the most likely tokens of the intervened run (and the target, if not among them). The width of one of a token&apos;s two bars.</extracomment>
        <translation>mostrar tudo</translation>
    </message>
    <message>
        <source>show the bars</source>
        <translation>mostrar as barras</translation>
    </message>
    <message>
        <source>show the ablation map</source>
        <translation>mostrar o mapa de ablação</translation>
    </message>
    <message>
        <source>show the heads&apos; direct effects</source>
        <translation>mostrar os efeitos diretos das cabeças</translation>
    </message>
    <message>
        <source>Which of the panel&apos;s pictures show</source>
        <translation>Quais figuras do painel aparecem</translation>
    </message>
    <message>
        <source>Switch off: layer</source>
        <translation>Desligar: camada</translation>
    </message>
    <message>
        <source>head </source>
        <translation>cabeça </translation>
    </message>
    <message>
        <source>&amp;Add</source>
        <translation>&amp;Adicionar</translation>
    </message>
    <message>
        <source>Switch this head off in the forward pass (undoable)</source>
        <translation>Desligar esta cabeça na passagem direta (pode ser desfeito)</translation>
    </message>
    <message>
        <source>C&amp;lear</source>
        <translation>&amp;Limpar</translation>
    </message>
    <message>
        <source>Switch every head on again</source>
        <translation>Religar todas as cabeças</translation>
    </message>
    <message>
        <source>What replaces a switched-off head&apos;s output: zeros, or its clean mean</source>
        <translation>O que substitui a saída de uma cabeça desligada: zeros, ou sua média limpa</translation>
    </message>
    <message>
        <source>layer </source>
        <translation>camada </translation>
    </message>
    <message>
        <source>all heads</source>
        <translation>todas as cabeças</translation>
    </message>
    <message>
        <source>query </source>
        <translation>consulta </translation>
    </message>
    <message>
        <source>key </source>
        <translation>chave </translation>
    </message>
    <message>
        <source>Cut a link:</source>
        <translation>Cortar uma ligação:</translation>
    </message>
    <message>
        <source>C&amp;ut</source>
        <translation>C&amp;ortar</translation>
    </message>
    <message>
        <source>Set this query&apos;s score for this key to −∞ before the softmax, in the forward pass (the row renormalises over the other keys; undoable)</source>
        <translation>Põe em −∞ a pontuação desta consulta para esta chave antes do softmax, dentro da passagem do modelo (a linha se renormaliza sobre as outras chaves; pode ser desfeito)</translation>
    </message>
    <message>
        <source>&amp;Restore links</source>
        <translation>&amp;Restaurar ligações</translation>
    </message>
    <message>
        <source>Put every cut link back</source>
        <translation>Devolve todas as ligações cortadas</translation>
    </message>
    <message>
        <source>&amp;Target:</source>
        <translation>Al&amp;vo:</translation>
    </message>
    <message>
        <source>clean top-1</source>
        <translation>top-1 limpo</translation>
    </message>
    <message>
        <source>The token whose probability is followed, as the vocabulary writes it (empty: the clean run&apos;s most likely; a click on a bar chooses its token)</source>
        <translation>O token cuja probabilidade é acompanhada, escrito como no vocabulário (vazio: o mais provável da execução limpa; um clique numa barra escolhe o seu token)</translation>
    </message>
    <message>
        <source>every head on</source>
        <translation>todas as cabeças ligadas</translation>
    </message>
    <message>
        <source>L%1 H%2</source>
        <translation>C%1 H%2</translation>
    </message>
    <message>
        <source>off: %1</source>
        <translation>desligadas: %1</translation>
    </message>
    <message>
        <source>every link on</source>
        <translation>todas as ligações ativas</translation>
    </message>
    <message>
        <source>cut: %1</source>
        <translation>cortadas: %1</translation>
    </message>
    <message>
        <source>L%1 all %2→%3</source>
        <translation>C%1 todas %2→%3</translation>
    </message>
    <message>
        <source>L%1 H%2 %3→%4</source>
        <translation>C%1 H%2 %3→%4</translation>
    </message>
    <message>
        <source>No map: see the line below.</source>
        <translation>Sem mapa: veja a linha abaixo.</translation>
    </message>
    <message>
        <source>No attribution: see the line below.</source>
        <translation>Sem atribuição: veja a linha abaixo.</translation>
    </message>
    <message>
        <source>No prediction: %1</source>
        <translation>Sem previsão: %1</translation>
    </message>
    <message>
        <source>No prediction: see the line below.</source>
        <translation>Sem predição: veja a linha abaixo.</translation>
    </message>
    <message>
        <source>%1 at position %2 (“%3”)</source>
        <translation>%1 na posição %2 (“%3”)</translation>
    </message>
    <message>
        <source>%1: p(★“%2”) = %3 with nothing switched off.</source>
        <translation>%1: p(★“%2”) = %3 sem nada desligado.</translation>
    </message>
    <message>
        <source>%1: p(★“%2”) %3 → %4 (Δ log p %5) with %6 switched off; most likely “%7” → “%8” (%9).</source>
        <translation>%1: p(★“%2”) %3 → %4 (Δ log p %5) com %6 desligado; mais provável “%7” → “%8” (%9).</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message numerus="yes">
        <source>%n link(s)</source>
        <translation>
            <numerusform>%n ligação</numerusform>
            <numerusform>%n ligações</numerusform>
        </translation>
    </message>
    <message>
        <source>The ablation map switches each of the %1 heads off in turn: about %2 s on this machine. Press Compute the map.</source>
        <translation>O mapa de ablação desliga cada uma das %1 cabeças por vez: cerca de %2 s nesta máquina. Clique em Calcular o mapa.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>Stop the map (Esc)</source>
        <translation>Parar o mapa (Esc)</translation>
    </message>
    <message>
        <source>Computing the map: about %1 s.</source>
        <translation>Calculando o mapa: cerca de %1 s.</translation>
    </message>
    <message>
        <source>Computing the map…</source>
        <translation>Calculando o mapa…</translation>
    </message>
    <message>
        <source>Computing the map… %1%</source>
        <translation>Calculando o mapa… %1%</translation>
    </message>
    <message>
        <source>Switch each head off alone and measure the target&apos;s log-probability</source>
        <translation>Desligar cada cabeça sozinha e medir a log-probabilidade do alvo</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Cancelado</translation>
    </message>
    <message>
        <source>The map was cancelled: press Compute the map.</source>
        <translation>O mapa foi cancelado: clique em Calcular o mapa.</translation>
    </message>
    <message>
        <source>Δ log p(★“%1”) with one head zero-ablated: layers × heads</source>
        <translation>Δ log p(★“%1”) com uma cabeça zerada: camadas × cabeças</translation>
    </message>
    <message>
        <source>Map ready</source>
        <translation>Mapa pronto</translation>
    </message>
    <message>
        <source>Δ log p(target)</source>
        <extracomment>A map estimated to take longer than this (seconds) waits for its Compute button. How often the map&apos;s progress bar follows it (ms). The map&apos;s values, as its box names them (the field ``prediction.map_value``).</extracomment>
        <translation>Δ log p(alvo)</translation>
    </message>
    <message>
        <source>Δ copy accuracy</source>
        <translation>Δ acerto da cópia</translation>
    </message>
    <message>
        <source>What a cell says with its head switched off: the change of log p(target), or the change of copy accuracy on the sentence&apos;s repeats (the share of tokens that follow an earlier occurrence&apos;s next token and that the model gets)</source>
        <translation>O que uma célula diz com sua cabeça desligada: a variação de log p(alvo), ou a variação do acerto da cópia nas repetições da frase (a fração dos tokens que seguem o próximo token de uma ocorrência anterior e que o modelo acerta)</translation>
    </message>
    <message>
        <source>The map of the current sentence, position and target</source>
        <translation>O mapa da frase, posição e alvo atuais</translation>
    </message>
    <message>
        <source>p(★“%1”) = %2 clean in the model&apos;s own distribution (temperature 1, nothing filtered); blue: switching the head off lowers it, red: raises it. Click a head to switch it off or on.</source>
        <translation>p(★“%1”) = %2 sem intervenção na distribuição do próprio modelo (temperatura 1, nada filtrado); azul: desligar a cabeça a reduz, vermelho: a aumenta. Clique numa cabeça para desligá-la ou religá-la.</translation>
    </message>
    <message>
        <source>Hatched: not softmax attention.</source>
        <translation>Hachurado: não é atenção softmax.</translation>
    </message>
    <message>
        <source>No token of this sentence can be copied from an earlier occurrence: repeat part of it (a list said twice) to measure copying.</source>
        <translation>Nenhum token desta frase pode ser copiado de uma ocorrência anterior: repita parte dela (uma lista dita duas vezes) para medir a cópia.</translation>
    </message>
    <message>
        <source>Δ copy accuracy with one head zero-ablated: layers × heads</source>
        <translation>Δ acerto da cópia com uma cabeça zerada: camadas × cabeças</translation>
    </message>
    <message>
        <source>Blue: switching the head off breaks copies. Click a head to switch it off or on.</source>
        <translation>Azul: desligar a cabeça quebra cópias. Clique numa cabeça para desligá-la ou religá-la.</translation>
    </message>
    <message>
        <source>Copying: the most likely next token continues the repeat at %1 of its %2 copyable tokens (%3).</source>
        <translation>Cópia: o próximo token mais provável continua a repetição em %1 dos seus %2 tokens copiáveis (%3).</translation>
    </message>
    <message>
        <source>With layer %1&apos;s head %2 off: %3 (%4), the most any one head costs; hover a head for its own.</source>
        <translation>Com a cabeça %2 da camada %1 desligada: %3 (%4), o máximo que uma cabeça custa; passe o mouse sobre uma cabeça para ver o dela.</translation>
    </message>
    <message>
        <source>Stopping after this token…</source>
        <translation>Parando depois deste token…</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Parar</translation>
    </message>
    <message>
        <source>Stop after the token being made; keep the others</source>
        <translation>Parar depois do token em cálculo; manter os outros</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>Gerando…</translation>
    </message>
    <message>
        <source>Generating… %1 of %2</source>
        <translation>Gerando… %1 de %2</translation>
    </message>
    <message>
        <source>The sentence changed meanwhile: nothing appended.</source>
        <translation>A frase mudou nesse meio-tempo: nada foi acrescentado.</translation>
    </message>
    <message>
        <source>Appended %1.</source>
        <translation>Acrescentado: %1.</translation>
    </message>
    <message>
        <source>Nothing appended.</source>
        <translation>Nada acrescentado.</translation>
    </message>
    <message>
        <source>The model ended the sequence.</source>
        <translation>O modelo encerrou a sequência.</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>Parado.</translation>
    </message>
    <message>
        <source>KV cache: %1 tokens, %2 (float32)</source>
        <translation>Cache KV: %1 tokens, %2 (float32)</translation>
    </message>
    <message>
        <source>KV cache: %1 of %2 tokens, %3 of %4 (float32)</source>
        <translation>Cache KV: %1 de %2 tokens, %3 de %4 (float32)</translation>
    </message>
    <message>
        <source>“%1” (id %2): clean %3, intervened %4</source>
        <translation>“%1” (id %2): limpa %3, com intervenção %4</translation>
    </message>
    <message>
        <source>Interventions</source>
        <translation>Intervenções</translation>
    </message>
    <message>
        <source>Show or hide the fields that switch heads off, cut links and pick the target. In a short dock they start hidden, so the pictures keep their room</source>
        <translation>Mostra ou esconde os campos que desligam cabeças, cortam ligações e escolhem o alvo. Num painel baixo eles começam escondidos, para que as figuras fiquem com o espaço</translation>
    </message>
    <message>
        <source>Bars</source>
        <translation>Barras</translation>
    </message>
    <message>
        <source>Map</source>
        <translation>Mapa</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>Cabeças</translation>
    </message>
</context>
<context>
    <name>Presentation</name>
    <message>
        <source>pointer: cell</source>
        <extracomment>Interface font on a 1920×1080 stage; other sizes scale with the height. View → Large Fonts on the stage: its type is sized for a hall already (26 px at 1080). The pointer&apos;s spotlight modes, in the order H cycles through them.</extracomment>
        <translation>ponteiro: célula</translation>
    </message>
    <message>
        <source>pointer: row</source>
        <translation>ponteiro: linha</translation>
    </message>
    <message>
        <source>pointer: column</source>
        <translation>ponteiro: coluna</translation>
    </message>
    <message>
        <source>Lesson: %1, step %2</source>
        <translation>Lição: %1, passo %2</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>Passo %1 de %2</translation>
    </message>
    <message>
        <source>attnviz presentation</source>
        <extracomment>Keys that move the choice in the stage&apos;s lesson list (the list&apos;s own).</extracomment>
        <translation>apresentação do attnviz</translation>
    </message>
    <message>
        <source>%1 next</source>
        <extracomment>A presenter remote&apos;s stepping keys: they step whatever widget has the focus. Keys that hand a text field&apos;s focus back to the stage after the field has used them. With one of these held a key is a shortcut of its own (Ctrl+Home), not the presenter&apos;s. The keys the key line names for each action (the others do the same, unnamed).</extracomment>
        <translation>%1 avança</translation>
    </message>
    <message>
        <source>%1 next lesson</source>
        <translation>%1 próxima lição</translation>
    </message>
    <message>
        <source>%1 back</source>
        <translation>%1 volta</translation>
    </message>
    <message>
        <source>%1 lessons</source>
        <translation>%1 lições</translation>
    </message>
    <message>
        <source>%1 black</source>
        <translation>%1 tela preta</translation>
    </message>
    <message>
        <source>%1 pointer</source>
        <translation>%1 ponteiro</translation>
    </message>
    <message>
        <source>%1 leave</source>
        <translation>%1 sai</translation>
    </message>
    <message>
        <source>Lessons: ↑/↓ choose · Enter present · Esc close</source>
        <extracomment>The share of the stage the list covers, across and down.</extracomment>
        <translation>Lições: ↑/↓ escolhe · Enter apresenta · Esc fecha</translation>
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
        <translation>O mesmo “banco”, agora dinheiro: Fui ao banco sacar dinheiro</translation>
    </message>
    <message>
        <source>Give “sacar” and “dinheiro” the value [1, 0]</source>
        <translation>Dar a “sacar” e a “dinheiro” o valor [1, 0]</translation>
    </message>
    <message>
        <source>seat</source>
        <translation>assento</translation>
    </message>
    <message>
        <source>money</source>
        <translation>dinheiro</translation>
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
        <source>A content head: “ele” finds “gato” through the slow RoPE pairs</source>
        <translation>Uma cabeça de conteúdo: “ele” encontra “gato” pelos pares lentos do RoPE</translation>
    </message>
    <message>
        <source>A longer Portuguese sentence, read row by row</source>
        <translation>Uma frase mais longa em português, lida linha por linha</translation>
    </message>
    <message>
        <source>Causal mask: one sentence, four next-token examples</source>
        <translation>Máscara causal: uma frase, quatro exemplos de próximo token</translation>
    </message>
    <message>
        <source>Two heads over 2-D embeddings: drag a word</source>
        <translation>Duas cabeças sobre embeddings 2-D: arraste uma palavra</translation>
    </message>
    <message>
        <source>Eight heads sharing two KV heads: “o banco da praça…”</source>
        <translation>Oito cabeças compartilhando duas cabeças KV: “o banco da praça…”</translation>
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
        <source>A previous-token head: its scores live in the fast RoPE pairs</source>
        <translation>Uma cabeça do token anterior: suas pontuações vivem nos pares rápidos do RoPE</translation>
    </message>
    <message>
        <source>The lesson&apos;s Qwen: 24 query heads sharing 4 KV heads</source>
        <translation>O Qwen da aula: 24 cabeças de consulta dividindo 4 cabeças KV</translation>
    </message>
    <message>
        <source>ALiBi beside RoPE: two ways to make distance matter</source>
        <translation>ALiBi ao lado do RoPE: duas maneiras de a distância contar</translation>
    </message>
    <message>
        <source>RoPE as clocks: a small teaching head</source>
        <translation>RoPE como relógios: uma pequena cabeça didática</translation>
    </message>
    <message>
        <source>Llama 3.1: base 500,000, Llama 3 scaling ×8 from 8,192 tokens</source>
        <translation>Llama 3.1: base 500.000, escala Llama 3 ×8 a partir de 8.192 tokens</translation>
    </message>
    <message>
        <source>Qwen2.5: base 1,000,000, YaRN ×4 from 32,768 tokens</source>
        <translation>Qwen2.5: base 1.000.000, YaRN ×4 a partir de 32.768 tokens</translation>
    </message>
</context>
<context>
    <name>ProjectionEditor</name>
    <message>
        <source>Embeddings X and matrices W</source>
        <extracomment>Rows and columns of a matrix shown; larger ones show their top-left corner. Fields whose change redraws the tables (the slider path touches none of them). The embeddings&apos; arrows: green, apart from the editor&apos;s blue queries and orange keys.</extracomment>
        <translation>Embeddings X e matrizes W</translation>
    </message>
    <message>
        <source>Use learned projections</source>
        <translation>Usar projeções aprendidas</translation>
    </message>
    <message>
        <source>Make Q, K and V from embeddings X and matrices W</source>
        <translation>Gerar Q, K e V a partir de embeddings X e matrizes W</translation>
    </message>
    <message>
        <source>Draw from the seed</source>
        <translation>Sortear pela semente</translation>
    </message>
    <message>
        <source>Forget the typed numbers of this matrix</source>
        <translation>Descartar os números digitados desta matriz</translation>
    </message>
    <message>
        <source>Q, K and V do not come from X and W now</source>
        <translation>Agora Q, K e V não vêm de X e W</translation>
    </message>
    <message>
        <source>typed: %1</source>
        <translation>digitadas: %1</translation>
    </message>
    <message>
        <source>all drawn from seed %1</source>
        <translation>todas sorteadas da semente %1</translation>
    </message>
    <message>
        <source>%1 is %2 × %3, %4.</source>
        <translation>%1 é %2 × %3, %4.</translation>
    </message>
    <message>
        <source>typed</source>
        <translation>digitada</translation>
    </message>
    <message>
        <source>drawn from seed %1</source>
        <translation>sorteada da semente %1</translation>
    </message>
    <message>
        <source>Showing the first %1 rows and columns.</source>
        <translation>Mostrando as primeiras %1 linhas e colunas.</translation>
    </message>
</context>
<context>
    <name>QKMap</name>
    <message>
        <source>direction 1</source>
        <translation>direção 1</translation>
    </message>
    <message>
        <source>direction 2</source>
        <translation>direção 2</translation>
    </message>
    <message>
        <source>queries</source>
        <extracomment>How the points are coloured: a ramp along the positions, one colour per token text, or one per sentence (the field ``attention.qk_colour``). Points nearer the mouse than this share of the view&apos;s width are hovered. Up to this many tokens each point is named beside it (more would crowd the names; then only the selected query and the key it reads most are named). Past this many points they are drawn smaller and without an outline (a long text). Sentences named in the legend when colouring by sentence (the hover names every one). Characters of a sentence the legend shows. Steps of the position ramp: a long text&apos;s thousands of points share this many brushes.</extracomment>
        <translation>consultas</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>chaves</translation>
    </message>
    <message>
        <source>the selected query</source>
        <translation>a consulta escolhida</translation>
    </message>
    <message>
        <source>UMAP 1</source>
        <translation>UMAP 1</translation>
    </message>
    <message>
        <source>UMAP 2</source>
        <translation>UMAP 2</translation>
    </message>
    <message>
        <source>the text shown</source>
        <translation>o texto mostrado</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>sentence %1</source>
        <translation>frase %1</translation>
    </message>
    <message>
        <source>query of “%1” (position %2 of %3): (%4, %5)</source>
        <translation>query de “%1” (posição %2 de %3): (%4, %5)</translation>
    </message>
    <message>
        <source>key of “%1” (position %2 of %3): (%4, %5)</source>
        <translation>key de “%1” (posição %2 de %3): (%4, %5)</translation>
    </message>
    <message>
        <source>key of “%1” (position %2 of %3): (%4, %5); q·k with the selected query %6</source>
        <translation>key de “%1” (posição %2 de %3): (%4, %5); q·k com a query selecionada %6</translation>
    </message>
    <message>
        <source>query of “%1” (position %2): (%3, %4)</source>
        <translation>consulta de “%1” (posição %2): (%3, %4)</translation>
    </message>
    <message>
        <source>key of “%1” (position %2): (%3, %4); q·k with the selected query %5</source>
        <translation>chave de “%1” (posição %2): (%3, %4); q·k com a consulta escolhida %5</translation>
    </message>
    <message>
        <source>The extra sentences go through a real model (File → Open Model…); this head draws its own text alone.</source>
        <extracomment>UMAP&apos;s seed: the same head and sentences give the same picture. Rows past which a map is computed on a worker even by PCA (drawing them is the cost). Why a synthetic head draws its own text alone (the note under the map).</extracomment>
        <translation>As frases a mais passam por um modelo real (Arquivo → Abrir modelo…); esta cabeça desenha só o próprio texto.</translation>
    </message>
</context>
<context>
    <name>ReachPanel</name>
    <message>
        <source>RNN (tanh)</source>
        <translation>RNN (tanh)</translation>
    </message>
    <message>
        <source>LSTM cell path</source>
        <translation>caminho da célula LSTM</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>atenção</translation>
    </message>
    <message>
        <source>Chapter 003, why recurrent networks forget: each step back multiplies the gradient by a factor below 1; attention reaches every token in one step.</source>
        <translation>Capítulo 003, por que as redes recorrentes esquecem: cada passo para trás multiplica o gradiente por um fator menor que 1; a atenção alcança todos os tokens num único passo.</translation>
    </message>
    <message>
        <source>Length &amp;T</source>
        <translation>Comprimento &amp;T</translation>
    </message>
    <message>
        <source>Tokens in the sequence: the gradient runs back T − 1 steps</source>
        <translation>Tokens na sequência: o gradiente volta T − 1 passos</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>semente </translation>
    </message>
    <message>
        <source>Another draw of the random weights and inputs</source>
        <translation>Sortear de novo os pesos e as entradas aleatórios</translation>
    </message>
    <message>
        <source>weights × </source>
        <translation>pesos × </translation>
    </message>
    <message>
        <source>Scale of the recurrent weights: 1 is the chapter&apos;s setting</source>
        <translation>Escala dos pesos recorrentes: 1 é o valor do capítulo</translation>
    </message>
    <message>
        <source>score spread </source>
        <translation>dispersão </translation>
    </message>
    <message>
        <source>Attention: random content scores of this spread (0: all tokens alike)</source>
        <translation>Atenção: pontuações de conteúdo aleatórias com esta dispersão (0: todos os tokens iguais)</translation>
    </message>
    <message>
        <source>steps back from the last token (t)</source>
        <translation>passos para trás a partir do último token (t)</translation>
    </message>
    <message>
        <source>gradient (last token = 1)</source>
        <translation>gradiente (último token = 1)</translation>
    </message>
    <message>
        <source>no fit</source>
        <translation>sem ajuste</translation>
    </message>
    <message>
        <source>%1: %2 per step</source>
        <translation>%1: %2 por passo</translation>
    </message>
    <message>
        <source>chapter: %1 at %2 tokens</source>
        <translation>capítulo: %1 em %2 tokens</translation>
    </message>
    <message>
        <source>Gradient reaching the first of T = %1 tokens: %2.</source>
        <translation>Gradiente que chega ao primeiro de T = %1 tokens: %2.</translation>
    </message>
    <message>
        <source>t = %1: %2</source>
        <translation>t = %1: %2</translation>
    </message>
</context>
<context>
    <name>RolloutView</name>
    <message>
        <source>layer %1</source>
        <extracomment>Longest token label drawn (characters); the hover has the whole token.</extracomment>
        <translation>camada %1</translation>
    </message>
    <message>
        <source>R = Â_L ··· Â_1: rows tokens, columns what they hold</source>
        <translation>R = Â_L ··· Â_1: linhas tokens, colunas o que eles contêm</translation>
    </message>
    <message>
        <source>Flow of “%1” across the layers</source>
        <translation>Fluxo de “%1” pelas camadas</translation>
    </message>
    <message>
        <source>share of each input token · click a row to follow that token</source>
        <translation>parcela de cada token de entrada · clique numa linha para seguir esse token</translation>
    </message>
    <message>
        <source>R[“%1”, “%2”] = %3: the share of “%2” in “%1” after the last layer</source>
        <translation>R[“%1”, “%2”] = %3: a parcela de “%2” em “%1” depois da última camada</translation>
    </message>
    <message>
        <source>after layer %4: the share of “%2” in “%1” = %3</source>
        <translation>depois da camada %4: a parcela de “%2” em “%1” = %3</translation>
    </message>
</context>
<context>
    <name>RoomNote</name>
    <message>
        <source>This panel needs more room than it has here.</source>
        <translation>Este painel precisa de mais espaço do que tem aqui.</translation>
    </message>
    <message>
        <source>Focus on Panel</source>
        <translation>Focar no painel</translation>
    </message>
    <message>
        <source>Show this panel alone in the window (Ctrl+Shift+F)</source>
        <translation>Mostrar só este painel na janela (Ctrl+Shift+F)</translation>
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
        <source>attnviz sessions (*%1 *%2);;All files (*)</source>
        <translation>Sessões do attnviz (*%1 *%2);;Todos os arquivos (*)</translation>
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
    <name>SpreadPanel</name>
    <message>
        <source>d_k (head width)</source>
        <extracomment>The plot&apos;s top over the widest measured spread (log units): the legend&apos;s room.</extracomment>
        <translation>d_k (largura da cabeça)</translation>
    </message>
    <message>
        <source>spread σ of the scores</source>
        <translation>dispersão σ dos scores</translation>
    </message>
    <message>
        <source>σ(q·k), random unit-variance q, k</source>
        <translation>σ(q·k), q e k aleatórios de variância 1</translation>
    </message>
    <message>
        <source>σ(q·k / √d_k)</source>
        <translation>σ(q·k / √d_k)</translation>
    </message>
    <message>
        <source>this head</source>
        <translation>esta cabeça</translation>
    </message>
    <message>
        <source>At d_k = %1, random q·k spread σ = %2 (√d_k = %3); divided by √d_k, %4. This head: σ(q·k) = %5, and the scores its softmax receives %6.</source>
        <translation>Com d_k = %1, q·k aleatório se espalha com σ = %2 (√d_k = %3); dividido por √d_k, %4. Esta cabeça: σ(q·k) = %5, e os scores que o seu softmax recebe, %6.</translation>
    </message>
    <message>
        <source>d_k = %1: σ(q·k) = %2 measured, √d_k = %3; divided by √d_k: %4</source>
        <translation>d_k = %1: σ(q·k) = %2 medido, √d_k = %3; dividido por √d_k: %4</translation>
    </message>
</context>
<context>
    <name>StepsPanel</name>
    <message>
        <source>The query whose row of attention is worked out below</source>
        <extracomment>Beyond this many keys the table keeps the ones with the largest weights. Value dimensions shown in step ④ (the largest ones when there are more). Step ④ shows at least this many, however narrow the panel (it then scrolls). Entries of the query vector written out beside the query&apos;s name. Type sizes relative to the interface font: the steps are read from the back of a room, but in large-font mode the interface font is already 1.5 times larger. In large-font mode only this part of the extra size is kept (1.3 → 1.15). The narrowest width the steps&apos; wrapped lines are measured at for the panel&apos;s minimum.</extracomment>
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
        <translation>⑤ gradiente dq</translation>
    </message>
    <message>
        <source>⑤ the way back: the gradient of the loss reaching the query of “%1”, dq = Σⱼ dSᵢⱼ kⱼ / √d_k (the gradient panel says where the loss comes from)</source>
        <translation>⑤ o caminho de volta: o gradiente da perda que chega à consulta de “%1”, dq = Σⱼ dSᵢⱼ kⱼ / √d_k (o painel de gradiente diz de onde vem a perda)</translation>
    </message>
    <message>
        <source>(d_k = %1)</source>
        <translation>(d_k = %1)</translation>
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
        <source>e^sⱼ in %1 (Σ = %2)</source>
        <translation>e^sⱼ em %1 (Σ = %2)</translation>
    </message>
    <message>
        <source>③ e^sⱼ / Σ, no max</source>
        <translation>③ e^sⱼ / Σ, sem máximo</translation>
    </message>
    <message>
        <source>e^sⱼ (Σ = %2)</source>
        <translation>e^sⱼ (Σ = %2)</translation>
    </message>
    <message>
        <source>↳ tuned × τ = %1</source>
        <translation>↳ ajustado × τ = %1</translation>
    </message>
    <message>
        <source>↳ capped %1·tanh(s/%1)</source>
        <translation>↳ limitada %1·tanh(s/%1)</translation>
    </message>
    <message>
        <source>↳ − %1·|i − j| (ALiBi)</source>
        <translation>↳ − %1·|i − j| (ALiBi)</translation>
    </message>
    <message>
        <source>③ divides by Σⱼ e^sⱼ + e^sink = %1 (sink %2): the sink takes %3, the keys %4</source>
        <translation>③ divide por Σⱼ e^sⱼ + e^sink = %1 (sumidouro %2): o sumidouro leva %3, as chaves %4</translation>
    </message>
    <message>
        <source>③ divides by Σⱼ e^sⱼ + e^sink (sink %2): the sink takes %3, the keys %4</source>
        <translation>③ divide por Σⱼ e^sⱼ + e^sink (sumidouro %2): o sumidouro leva %3, as chaves %4</translation>
    </message>
    <message>
        <source>④ shows the %1 largest of %2 output components.</source>
        <translation>④ mostra os %1 maiores de %2 componentes da saída.</translation>
    </message>
    <message>
        <source>④ output Σ aⱼ vⱼ</source>
        <translation>④ saída Σ aⱼ vⱼ</translation>
    </message>
    <message>
        <source>④ the output of “%1”: the values mixed in the proportions of ③</source>
        <translation>④ a saída de “%1”: os valores misturados nas proporções de ③</translation>
    </message>
    <message>
        <source>Output: %1</source>
        <translation>Saída: %1</translation>
    </message>
    <message>
        <source>The softmax overflowed: the output is not a number.</source>
        <translation>O softmax estourou: a saída não é um número.</translation>
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
        <source>Chapter 003, FlashAttention: the scores are computed one tile at a time; each query row keeps only a running max m, a running sum ℓ and its output so far, rescaled whenever m grows. ←/→ step, Home/End, Space plays.</source>
        <extracomment>Milliseconds between tiles while playing. The keys that step and play the tiles while the panel has the focus. Colours of the Q tile (rows) and the K/V tile (keys), Okabe–Ito.</extracomment>
        <translation>Capítulo 003, FlashAttention: as pontuações são calculadas um bloco por vez; cada linha de consulta guarda só um máximo corrente m, uma soma corrente ℓ e a saída até ali, reescalonadas sempre que m cresce. ←/→ avançam, Home/End, Space reproduz.</translation>
    </message>
    <message>
        <source>Numbers held at once</source>
        <translation>Números em memória</translation>
    </message>
    <message>
        <source>Tokens of the small sequence</source>
        <translation>Tokens da sequência pequena</translation>
    </message>
    <message>
        <source>Width of q, k and v</source>
        <translation>Largura de q, k e v</translation>
    </message>
    <message>
        <source>Query rows per tile</source>
        <translation>Linhas de consulta por bloco</translation>
    </message>
    <message>
        <source>Keys (and values) per tile</source>
        <translation>Chaves (e valores) por bloco</translation>
    </message>
    <message>
        <source>Causal</source>
        <translation>Causal</translation>
    </message>
    <message>
        <source>Tiles above the diagonal are skipped</source>
        <translation>Os blocos acima da diagonal são pulados</translation>
    </message>
    <message>
        <source>n</source>
        <translation>n</translation>
    </message>
    <message>
        <source>d</source>
        <translation>d</translation>
    </message>
    <message>
        <source>Q tile</source>
        <translation>Bloco Q</translation>
    </message>
    <message>
        <source>K/V tile</source>
        <translation>Bloco K/V</translation>
    </message>
    <message>
        <source>First tile (Home)</source>
        <translation>Primeiro bloco (Home)</translation>
    </message>
    <message>
        <source>Previous tile (←)</source>
        <translation>Bloco anterior (←)</translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation>Reproduzir (Space)</translation>
    </message>
    <message>
        <source>Next tile (→)</source>
        <translation>Próximo bloco (→)</translation>
    </message>
    <message>
        <source>Last tile (End)</source>
        <translation>Último bloco (End)</translation>
    </message>
    <message>
        <source>The tile shown</source>
        <translation>O bloco mostrado</translation>
    </message>
    <message>
        <source>S = QKᵀ/√d</source>
        <translation>S = QKᵀ/√d</translation>
    </message>
    <message>
        <source>m</source>
        <translation>m</translation>
    </message>
    <message>
        <source>ℓ</source>
        <translation>ℓ</translation>
    </message>
    <message>
        <source>O so far</source>
        <translation>O até aqui</translation>
    </message>
    <message>
        <source>O final</source>
        <translation>O final</translation>
    </message>
    <message>
        <source>Tile %1 of %2: query rows %3–%4 × keys %5–%6</source>
        <translation>Bloco %1 de %2: linhas de consulta %3–%4 × chaves %5–%6</translation>
    </message>
    <message>
        <source>skipped: the causal mask hides every cell of it</source>
        <translation>pulado: a máscara causal oculta todas as suas células</translation>
    </message>
    <message>
        <source>m ← max(m, row max of the tile); ℓ and O rescaled by e^(m_old − m)</source>
        <translation>m ← max(m, máximo da linha no bloco); ℓ e O reescalonados por e^(m_old − m)</translation>
    </message>
    <message>
        <source>All %1 rows final: the tiled output equals the dense attention() output (largest difference %2).</source>
        <translation>As %1 linhas estão finais: a saída em blocos é igual à saída densa de attention() (maior diferença %2).</translation>
    </message>
    <message>
        <source>%1 of %2 rows final.</source>
        <translation>%1 de %2 linhas finais.</translation>
    </message>
    <message>
        <source>n = %1</source>
        <translation>n = %1</translation>
    </message>
    <message>
        <source>held by the tiles</source>
        <translation>nos blocos</translation>
    </message>
    <message>
        <source>n×n matrix</source>
        <translation>matriz n×n</translation>
    </message>
    <message>
        <source>%1 × tiled</source>
        <translation>%1 × em blocos</translation>
    </message>
    <message>
        <source>tiles of %1</source>
        <translation>de %1</translation>
    </message>
    <message>
        <source>tiled</source>
        <translation>em blocos</translation>
    </message>
    <message>
        <source>naive</source>
        <translation>ingênua</translation>
    </message>
    <message>
        <source>Bytes moved to and from HBM</source>
        <translation>Bytes movidos de e para a HBM</translation>
    </message>
    <message>
        <source>Naive attention writes the n×n scores and weights to HBM and reads them back; the tiles read Q once, K and V once per block of query rows (%1 in the demo, %2 at the long n, as a kernel&apos;s on-chip memory holds), and write O. Small blocks read K and V many times. %3 bytes a number.</source>
        <translation>A atenção ingênua escreve as pontuações e os pesos n×n na HBM e os lê de volta; os blocos leem Q uma vez, K e V uma vez por bloco de linhas de consulta (%1 na demonstração, %2 no n longo, o que cabe na memória do chip de um kernel) e escrevem O. Blocos pequenos leem K e V muitas vezes. %3 bytes por número.</translation>
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
        <source>Add a token after this one (Insert)</source>
        <translation>Inserir um token depois deste (Insert)</translation>
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
    <message numerus="yes">
        <source>%n token(s)</source>
        <extracomment>The slider&apos;s stops.</extracomment>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>Exact value: %1; type 131072, 128k or 1M</source>
        <translation>Valor exato: %1; digite 131072, 128k ou 1M</translation>
    </message>
</context>
<context>
    <name>TrainDialog</name>
    <message>
        <source>Train Induction Heads</source>
        <extracomment>How often the window takes the points measured on the worker (ms). The sentence the trained model opens with: six of its words, repeated (what it copies). The largest seed a spin box holds (the command line takes up to 2³² − 1).</extracomment>
        <translation>Treinar cabeças de indução</translation>
    </message>
    <message>
        <source>&amp;Seed:</source>
        <translation>&amp;Semente:</translation>
    </message>
    <message>
        <source>The same seed gives the same model on the same machine</source>
        <translation>A mesma semente dá o mesmo modelo na mesma máquina</translation>
    </message>
    <message>
        <source>S&amp;teps:</source>
        <translation>&amp;Passos:</translation>
    </message>
    <message>
        <source>Induction heads usually form after 500 to 700 steps; 1,000 is enough</source>
        <translation>As cabeças de indução costumam surgir depois de 500 a 700 passos; 1.000 bastam</translation>
    </message>
    <message>
        <source>&amp;Folder:</source>
        <translation>P&amp;asta:</translation>
    </message>
    <message>
        <source>The new model folder (it must not exist yet)</source>
        <translation>A pasta do novo modelo (ela ainda não pode existir)</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>P&amp;rocurar…</translation>
    </message>
    <message>
        <source>S&amp;tart</source>
        <translation>&amp;Iniciar</translation>
    </message>
    <message>
        <source>Train on one CPU thread, away from the window</source>
        <translation>Treina numa thread da CPU, fora da janela</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>&amp;Cancelar</translation>
    </message>
    <message>
        <source>Stop training; nothing is written</source>
        <translation>Para o treino; nada é gravado</translation>
    </message>
    <message>
        <source>&amp;Open in Every Panel</source>
        <translation>Abrir em &amp;todos os painéis</translation>
    </message>
    <message>
        <source>Open the trained model as File → Open Model… does</source>
        <translation>Abre o modelo treinado como Arquivo → Abrir modelo… faz</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Fechar</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>Não iniciado</translation>
    </message>
    <message>
        <source>Where the new model folder goes</source>
        <translation>Onde fica a pasta do novo modelo</translation>
    </message>
    <message>
        <source>%1 steps take %2 on one CPU thread; the window stays usable.</source>
        <translation>%1 passos levam %2 numa thread da CPU; a janela continua utilizável.</translation>
    </message>
    <message>
        <source>Choose a folder for the new model</source>
        <translation>Escolha uma pasta para o novo modelo</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Starting… %1</source>
        <translation>Iniciando… %1</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>Cancelando…</translation>
    </message>
    <message>
        <source>Step %1 of %2, %3 left</source>
        <translation>Passo %1 de %2, faltam %3</translation>
    </message>
    <message>
        <source>Loss %1 (chance %2), previous-token %3, induction %4, copy accuracy %5 %</source>
        <translation>Perda %1 (acaso %2), token anterior %3, indução %4, acerto da cópia %5 %</translation>
    </message>
    <message>
        <source>Cancelled: nothing was written</source>
        <translation>Cancelado: nada foi gravado</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Falhou</translation>
    </message>
    <message>
        <source>induction passed 0.5 at step %1.</source>
        <translation>a indução passou de 0,5 no passo %1.</translation>
    </message>
    <message>
        <source>induction never passed 0.5: train longer or try another seed.</source>
        <translation>a indução não passou de 0,5: treine mais ou tente outra semente.</translation>
    </message>
    <message>
        <source>Trained in %1 s: %2</source>
        <translation>Treinado em %1 s: %2</translation>
    </message>
    <message>
        <source>about %1 s</source>
        <translation>cerca de %1 s</translation>
    </message>
    <message>
        <source>about %1 min</source>
        <translation>cerca de %1 min</translation>
    </message>
    <message>
        <source>step</source>
        <extracomment>The columns of the score plot, in the order their curves take colours.</extracomment>
        <translation>passo</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>perda</translation>
    </message>
    <message>
        <source>score</source>
        <translation>pontuação</translation>
    </message>
    <message>
        <source>previous-token</source>
        <translation>token anterior</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>indução</translation>
    </message>
    <message>
        <source>copy accuracy</source>
        <translation>acerto da cópia</translation>
    </message>
    <message>
        <source>chance</source>
        <translation>acaso</translation>
    </message>
</context>
<context>
    <name>TrainingPanel</name>
    <message>
        <source>No training curves: %1.</source>
        <translation>Sem curvas de treino: %1.</translation>
    </message>
    <message>
        <source>%1 steps measured every %2; chance (a uniform guess over %3 words): loss %4.</source>
        <translation>%1 passos medidos a cada %2; acaso (um chute uniforme entre %3 palavras): perda %4.</translation>
    </message>
    <message>
        <source>At step %1 (dotted) the induction score first passes %2, and the loss is %3, down from %4 at step %5.</source>
        <translation>No passo %1 (pontilhado) a pontuação de indução passa de %2 pela primeira vez, e a perda é %3, abaixo de %4 no passo %5.</translation>
    </message>
    <message>
        <source>The induction score never passes %1: no circuit formed.</source>
        <translation>A pontuação de indução nunca passa de %1: nenhum circuito se formou.</translation>
    </message>
    <message>
        <source>At step %1: loss %2, induction %3, copy accuracy %4.</source>
        <translation>No passo %1: perda %2, indução %3, acerto da cópia %4.</translation>
    </message>
    <message>
        <source>step %1: loss %2, previous-token %3, induction %4, copy accuracy %5</source>
        <translation>passo %1: perda %2, token anterior %3, indução %4, acerto da cópia %5</translation>
    </message>
</context>
<context>
    <name>UndoController</name>
    <message>
        <source>Preset</source>
        <extracomment>The name of an undo step that changes a preset: it wins over every field it set.</extracomment>
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
        <extracomment>The lesson&apos;s model: 262,144 tokens of context. A real model&apos;s sentence is at most this long (its zoom windows may reach past ``n``). The tiles demo: a sequence small enough to print, blocks of 4–16 rows or keys.
----------
Longest sequence the panel simulates (the LSTM runs one step per token).</extracomment>
        <translation>Comprimento da sequência</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>Cabeça</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Semente</translation>
    </message>
    <message>
        <source>Map cells</source>
        <translation>Células do mapa</translation>
    </message>
    <message>
        <source>Map cell value</source>
        <translation>Valor da célula do mapa</translation>
    </message>
    <message>
        <source>Scale by √d_k</source>
        <translation>Escala por √d_k</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Precisão</translation>
    </message>
    <message>
        <source>Log colour scale</source>
        <translation>Escala de cores em log</translation>
    </message>
    <message>
        <source>Zoomed rows</source>
        <translation>Linhas ampliadas</translation>
    </message>
    <message>
        <source>Zoomed columns</source>
        <translation>Colunas ampliadas</translation>
    </message>
    <message>
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>Heads switched off</source>
        <translation>Cabeças desligadas</translation>
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
        <source>Temperature tuning</source>
        <translation>Ajuste de temperatura</translation>
    </message>
    <message>
        <source>Tuning floor</source>
        <translation>Piso do ajuste</translation>
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
        <source>Attention chunk</source>
        <translation>Bloco de atenção</translation>
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
        <source>e^s row</source>
        <translation>Linha e^s</translation>
    </message>
    <message>
        <source>Naive softmax</source>
        <translation>Softmax ingênuo</translation>
    </message>
    <message>
        <source>Softmax number format</source>
        <translation>Formato numérico do softmax</translation>
    </message>
    <message>
        <source>Value labels</source>
        <translation>Rótulos dos valores</translation>
    </message>
    <message>
        <source>Levels of A</source>
        <translation>Níveis de A</translation>
    </message>
    <message>
        <source>Upstream gradient</source>
        <translation>Gradiente a montante</translation>
    </message>
    <message>
        <source>Gradient seed</source>
        <translation>Semente do gradiente</translation>
    </message>
    <message>
        <source>Gradient component</source>
        <translation>Componente do gradiente</translation>
    </message>
    <message>
        <source>RoPE on the heatmap</source>
        <translation>RoPE no mapa de calor</translation>
    </message>
    <message>
        <source>RoPE scaling</source>
        <translation>Escala do RoPE</translation>
    </message>
    <message>
        <source>Head width</source>
        <extracomment>Largest position or context the panel offers (the lesson&apos;s model reaches 262,144; scaled contexts of real models reach about a million).</extracomment>
        <translation>Largura da cabeça</translation>
    </message>
    <message>
        <source>RoPE base</source>
        <translation>Base do RoPE</translation>
    </message>
    <message>
        <source>Scaling factor</source>
        <translation>Fator de escala</translation>
    </message>
    <message>
        <source>Original context</source>
        <translation>Contexto original</translation>
    </message>
    <message>
        <source>Query position</source>
        <translation>Posição da consulta</translation>
    </message>
    <message>
        <source>Key position</source>
        <translation>Posição da chave</translation>
    </message>
    <message>
        <source>Position offset</source>
        <translation>Deslocamento das posições</translation>
    </message>
    <message>
        <source>Logit soft-cap</source>
        <translation>Limite suave dos logits</translation>
    </message>
    <message>
        <source>ALiBi</source>
        <translation>ALiBi</translation>
    </message>
    <message>
        <source>Attention sink</source>
        <translation>Sumidouro de atenção</translation>
    </message>
    <message>
        <source>Sink logit</source>
        <translation>Logit do sumidouro</translation>
    </message>
    <message>
        <source>Rotated dimensions</source>
        <translation>Dimensões rotacionadas</translation>
    </message>
    <message>
        <source>Upstream gradient values</source>
        <translation>Valores do gradiente de saída</translation>
    </message>
    <message>
        <source>Low-frequency factor</source>
        <translation>Fator de baixa frequência</translation>
    </message>
    <message>
        <source>High-frequency factor</source>
        <translation>Fator de alta frequência</translation>
    </message>
    <message>
        <source>YaRN β fast</source>
        <translation>YaRN β rápido</translation>
    </message>
    <message>
        <source>YaRN β slow</source>
        <translation>YaRN β lento</translation>
    </message>
    <message>
        <source>ALiBi slope</source>
        <translation>Inclinação ALiBi</translation>
    </message>
    <message>
        <source>Decimals</source>
        <extracomment>0 is automatic; 1 decimal cannot tell the documents&apos; weights apart, so it is not offered.</extracomment>
        <translation>Casas decimais</translation>
    </message>
    <message>
        <source>Before / after</source>
        <translation>Antes / depois</translation>
    </message>
    <message>
        <source>Layers view</source>
        <translation>Visão das camadas</translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation>Edição de %1</translation>
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
        <extracomment>Largest vocabulary offered: 128k read as 128 × 1024 (the default is the chapter&apos;s 128,000). Largest batch: 2^20 tokens, the order of an LLM&apos;s training batch.</extracomment>
        <translation>Tamanho do vocabulário</translation>
    </message>
    <message>
        <source>Tokens in the batch</source>
        <translation>Tokens no lote</translation>
    </message>
    <message>
        <source>Zipf exponent</source>
        <translation>Expoente de Zipf</translation>
    </message>
    <message>
        <source>Table width</source>
        <translation>Largura da tabela</translation>
    </message>
    <message>
        <source>Tied embeddings</source>
        <translation>Embeddings compartilhados</translation>
    </message>
    <message>
        <source>Strip colour</source>
        <translation>Cor da faixa</translation>
    </message>
    <message>
        <source>Model width d_model</source>
        <translation>Largura do modelo d_model</translation>
    </message>
    <message>
        <source>Number of heads</source>
        <translation>Número de cabeças</translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation>Cabeças KV</translation>
    </message>
    <message>
        <source>Embeddings X</source>
        <translation>Embeddings X</translation>
    </message>
    <message>
        <source>W_Q</source>
        <translation>W_Q</translation>
    </message>
    <message>
        <source>W_K</source>
        <translation>W_K</translation>
    </message>
    <message>
        <source>W_V</source>
        <translation>W_V</translation>
    </message>
    <message>
        <source>W^O</source>
        <translation>W^O</translation>
    </message>
    <message>
        <source>Head shown</source>
        <translation>Cabeça mostrada</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>Sentence</source>
        <translation>Frase</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>Camada</translation>
    </message>
    <message>
        <source>Model head</source>
        <translation>Cabeça do modelo</translation>
    </message>
    <message>
        <source>Model card</source>
        <extracomment>Fields that describe the card (ModelCard&apos;s names in brackets where they differ). Largest GPU memory offered, in GB (10^9 bytes): a whole rack&apos;s worth.</extracomment>
        <translation>Ficha do modelo</translation>
    </message>
    <message>
        <source>Recurrent state</source>
        <translation>Estado recorrente</translation>
    </message>
    <message>
        <source>Convolution state</source>
        <translation>Estado da convolução</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>Tamanho do contexto</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>Lote</translation>
    </message>
    <message>
        <source>Cache dtype</source>
        <translation>dtype do cache</translation>
    </message>
    <message>
        <source>Weights dtype</source>
        <translation>dtype dos pesos</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>Memória da GPU</translation>
    </message>
    <message>
        <source>Memory bandwidth</source>
        <translation>Largura de banda da memória</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Camadas</translation>
    </message>
    <message>
        <source>Query heads</source>
        <translation>Cabeças de consulta</translation>
    </message>
    <message>
        <source>MLA latent</source>
        <translation>Latente MLA</translation>
    </message>
    <message>
        <source>Attention layers</source>
        <translation>Camadas de atenção</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>Janela</translation>
    </message>
    <message>
        <source>Model name</source>
        <translation>Nome do modelo</translation>
    </message>
    <message>
        <source>Rotary head width</source>
        <translation>Largura rotacional da cabeça</translation>
    </message>
    <message>
        <source>Window layers</source>
        <translation>Camadas c/ janela</translation>
    </message>
    <message>
        <source>Parameter count</source>
        <translation>Número de parâmetros</translation>
    </message>
    <message>
        <source>Weight scale</source>
        <translation>Escala dos pesos</translation>
    </message>
    <message>
        <source>Score spread</source>
        <translation>Dispersão das pontuações</translation>
    </message>
    <message>
        <source>Tiles: tokens</source>
        <translation>Blocos: tokens</translation>
    </message>
    <message>
        <source>Tiles: width</source>
        <translation>Blocos: largura</translation>
    </message>
    <message>
        <source>Tiles: step</source>
        <translation>Blocos: passo</translation>
    </message>
    <message>
        <source>Query tile size</source>
        <translation>Tamanho do bloco de consulta</translation>
    </message>
    <message>
        <source>Key tile size</source>
        <translation>Tamanho do bloco de chaves</translation>
    </message>
    <message>
        <source>Sampling temperature</source>
        <extracomment>What the panel shows under its controls: everything, or one of its three pictures (a lesson&apos;s slide shows one at a time). What the ablation map&apos;s cells say: Δ log p(target), or Δ copy accuracy on the sentence&apos;s repeats (:mod:`attnviz.core.copying`), each with one head off. Largest temperature offered (the distribution is flat long before). Largest index of a position, a layer, a head, a query or a key (a sentence&apos;s tokens are fewer: attnviz.model.topics._attention_limits.MAX_SENTENCE characters). The most heads ablated and links knocked out at once. The most tokens one Generate appends (attnviz.core.hf_generate.MAX_COUNT).</extracomment>
        <translation>Temperatura de amostragem</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Predicted position</source>
        <translation>Posição prevista</translation>
    </message>
    <message>
        <source>Target token</source>
        <translation>Token-alvo</translation>
    </message>
    <message>
        <source>Ablated heads</source>
        <translation>Cabeças ablacionadas</translation>
    </message>
    <message>
        <source>Ablation</source>
        <translation>Ablação</translation>
    </message>
    <message>
        <source>Knocked-out links</source>
        <translation>Ligações cortadas</translation>
    </message>
    <message>
        <source>Generation seed</source>
        <translation>Semente da geração</translation>
    </message>
    <message>
        <source>Prediction view</source>
        <translation>Vista da previsão</translation>
    </message>
    <message>
        <source>Ablation map values</source>
        <translation>Valores do mapa de ablação</translation>
    </message>
    <message>
        <source>Tokens to generate</source>
        <translation>Tokens a gerar</translation>
    </message>
    <message>
        <source>Mixer</source>
        <extracomment>Longest synthetic sequence (the delta rule&apos;s matrix costs n² d). Widest synthetic head. Most pairs the recall experiment writes (its sequence is twice as long). Longest window, k or stride accepted (beyond MAX_TOKENS they all mean &quot;every key&quot;). Most layers the receptive-field picture stacks. The panel&apos;s pages: the mixing matrices, the decode stepper, a window&apos;s reach with depth.</extracomment>
        <translation>Misturador</translation>
    </message>
    <message>
        <source>Top k</source>
        <translation>Top k</translation>
    </message>
    <message>
        <source>Stride</source>
        <translation>Passo</translation>
    </message>
    <message>
        <source>Feature map</source>
        <translation>Mapa de atributos</translation>
    </message>
    <message>
        <source>Normalised</source>
        <translation>Normalizada</translation>
    </message>
    <message>
        <source>Decay γ</source>
        <translation>Decaimento γ</translation>
    </message>
    <message>
        <source>β</source>
        <translation>β</translation>
    </message>
    <message>
        <source>α</source>
        <translation>α</translation>
    </message>
    <message>
        <source>Recall pairs</source>
        <translation>Pares de recordação</translation>
    </message>
    <message>
        <source>Mixers page</source>
        <translation>Página dos misturadores</translation>
    </message>
    <message>
        <source>Decoding step</source>
        <translation>Passo de decodificação</translation>
    </message>
    <message>
        <source>Depth</source>
        <translation>Profundidade</translation>
    </message>
    <message>
        <source>Map projection</source>
        <extracomment>The most extra sentences, and the longest (each runs through the model once).</extracomment>
        <translation>Projeção do mapa</translation>
    </message>
    <message>
        <source>Map colours</source>
        <translation>Cores do mapa</translation>
    </message>
    <message>
        <source>Map sentences</source>
        <translation>Frases do mapa</translation>
    </message>
</context>
</TS>
