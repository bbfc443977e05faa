"""NetworkX backend metadata for bitgraph (``networkx.backend_info`` entry point).

NetworkX calls :func:`get_info` while it is being imported, so this module
imports nothing (in particular not bitgraph, numba or numpy).  The function
table below is generated from ``bitgraph.nx.INFO``; refresh it with
``python -c "import bitgraph.nx as b; b._write_info()"`` (a test checks it).

>>> info = get_info()
>>> info["backend_name"], info["default_config"]["device"]
('bitgraph', 'auto')
>>> "bfs_layers" in info["functions"]
True
"""

__all__ = ["get_info"]

# --- generated: begin ---
_FUNCTIONS = {'adamic_adar_index': {'additional_docs': 'Sums over common neighbours from one masked plus.times '
                                          'product.',
                       'additional_parameters': {},
                       'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.link_prediction.adamic_adar_index.html'},
 'all_pairs_dijkstra_path': {'additional_docs': 'single_source_dijkstra_path from every node. Tied '
                                                "paths: NetworkX's path.",
                             'additional_parameters': {},
                             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.all_pairs_dijkstra_path.html'},
 'all_pairs_shortest_path': {'additional_docs': 'single_source_shortest_path from every node. Tied '
                                                "paths: NetworkX's path.",
                             'additional_parameters': {},
                             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.unweighted.all_pairs_shortest_path.html'},
 'all_pairs_shortest_path_length': {'additional_docs': 'Batches of 64-source bit-parallel BFS '
                                                       '(msbfs, on the GPU when the graph is '
                                                       'there); cutoff supported.',
                                    'additional_parameters': {},
                                    'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.unweighted.all_pairs_shortest_path_length.html'},
 'ancestors': {'additional_docs': 'One BFS over the transposed adjacency '
                                  '(bitgraph.algorithms.bfs).',
               'additional_parameters': {},
               'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.dag.ancestors.html'},
 'average_clustering': {'additional_docs': 'Unweighted only (weight falls back); mean of '
                                           'clustering.',
                        'additional_parameters': {},
                        'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.cluster.average_clustering.html'},
 'average_degree_connectivity': {'additional_docs': 'Neighbour degree sums by one mxv (weighted: '
                                                    'plus.times with the weights).',
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.assortativity.average_degree_connectivity.html'},
 'average_neighbor_degree': {'additional_docs': "Neighbour degree sums by mxv with A and/or A' "
                                                '(weighted: plus.times).',
                             'additional_parameters': {},
                             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.assortativity.average_neighbor_degree.html'},
 'bellman_ford_path': {'additional_docs': 'bitgraph.algorithms.sssp (negative weights too); tied '
                                          "paths fall back (NetworkX's choice follows its queue "
                                          'order).',
                       'additional_parameters': {},
                       'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.bellman_ford_path.html'},
 'bellman_ford_path_length': {'additional_docs': 'bitgraph.algorithms.sssp from source '
                                                 '(Bellman-Ford with negative weights); a '
                                                 'reachable negative cycle raises '
                                                 'NetworkXUnbounded.',
                              'additional_parameters': {},
                              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.bellman_ford_path_length.html'},
 'betweenness_centrality': {'additional_docs': 'Brandes in batches of 64 sources: multi-source BFS '
                                               'levels, path counts and dependencies by masked '
                                               'plus_first products; weighted: Dijkstra a source '
                                               '(lengths that are zero, non-finite or too far '
                                               'apart for float64 sums fall back); k sampled as '
                                               "NetworkX with its seed, NetworkX's scaling.",
                            'additional_parameters': {},
                            'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.betweenness_centrality.html'},
 'bfs_edges': {'additional_docs': "NetworkX's exact edge order; sort_neighbors, and reverse on "
                                  'directed graphs, fall back to NetworkX.',
               'additional_parameters': {},
               'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.traversal.breadth_first_search.bfs_edges.html'},
 'bfs_layers': {'additional_docs': "Level-synchronous BFS in numpy; NetworkX's exact layer order.",
                'additional_parameters': {},
                'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.traversal.breadth_first_search.bfs_layers.html'},
 'bfs_predecessors': {'additional_docs': "From bfs_edges (NetworkX's order); sort_neighbors falls "
                                         'back.',
                      'additional_parameters': {},
                      'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.traversal.breadth_first_search.bfs_predecessors.html'},
 'bfs_successors': {'additional_docs': "From bfs_edges (NetworkX's order); sort_neighbors falls "
                                       'back.',
                    'additional_parameters': {},
                    'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.traversal.breadth_first_search.bfs_successors.html'},
 'bfs_tree': {'additional_docs': 'Built from bfs_edges (same tree as NetworkX); sort_neighbors and '
                                 'directed reverse fall back.',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.traversal.breadth_first_search.bfs_tree.html'},
 'bidirectional_shortest_path': {'additional_docs': "Undirected: NetworkX's two-sided BFS level by "
                                                    'level in numpy. Directed: two BFS; tied paths '
                                                    'fall back.',
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.unweighted.bidirectional_shortest_path.html'},
 'closeness_centrality': {'additional_docs': 'Unweighted only (distance falls back); multi-source '
                                             'BFS, 64 sources a pass (on the GPU when the graph is '
                                             'there).',
                          'additional_parameters': {},
                          'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.closeness_centrality.html'},
 'clustering': {'additional_docs': "Unweighted only (weight falls back); directed: masked (A+A')^2 "
                                   "times (A+A').",
                'additional_parameters': {},
                'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.cluster.clustering.html'},
 'complement': {'additional_docs': 'Built from dense n x n flags (the result has n(n-1) - m '
                                   'edges).',
                'additional_parameters': {},
                'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.operators.unary.complement.html'},
 'connected_components': {'additional_docs': 'Afforest union-find over the whole graph, then one '
                                             'set per component.',
                          'additional_parameters': {},
                          'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.components.connected_components.html'},
 'core_number': {'additional_docs': "Peeling (LAGraph's k-core): a push along the removed rows a "
                                    'round (one vxm when the frontier is wide); directed: in + out '
                                    'degrees.',
                 'additional_parameters': {},
                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.core.core_number.html'},
 'degree_centrality': {'additional_docs': 'Row (and, directed, column) counts of the adjacency; '
                                          'multigraphs fall back.',
                       'additional_parameters': {},
                       'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.degree_centrality.html'},
 'descendants': {'additional_docs': 'One BFS (bitgraph.algorithms.bfs) from source.',
                 'additional_parameters': {},
                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.dag.descendants.html'},
 'descendants_at_distance': {'additional_docs': 'One BFS through bitgraph.algorithms.bfs (on the '
                                                'GPU when the graph is there).',
                             'additional_parameters': {},
                             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.traversal.breadth_first_search.descendants_at_distance.html'},
 'diameter': {'additional_docs': 'Unweighted only; exact, from multi-source BFS of every node '
                                 '(usebounds not needed).',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.distance_measures.diameter.html'},
 'dijkstra_path': {'additional_docs': "bitgraph.algorithms.sssp, then NetworkX's heap order over "
                                      "the tight edges. Tied paths: NetworkX's path. Negative "
                                      'weights fall back.',
                   'additional_parameters': {},
                   'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.dijkstra_path.html'},
 'dijkstra_path_length': {'additional_docs': 'bitgraph.algorithms.sssp from source; negative '
                                             'weights fall back.',
                          'additional_parameters': {},
                          'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.dijkstra_path_length.html'},
 'eccentricity': {'additional_docs': 'Unweighted only, sp=None; multi-source BFS, 64 sources a '
                                     'pass.',
                  'additional_parameters': {},
                  'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.distance_measures.eccentricity.html'},
 'edge_betweenness_centrality': {'additional_docs': 'Brandes in batches of 64 sources; edge shares '
                                                    'summed per batch; weighted as '
                                                    'betweenness_centrality; k and seed as '
                                                    'NetworkX; multigraphs fall back.',
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.edge_betweenness_centrality.html'},
 'eigenvector_centrality': {'additional_docs': "Power iteration, one vxm a step with NetworkX's (A "
                                               '+ I) update and stop rule; weights and nstart as '
                                               'NetworkX.',
                            'additional_parameters': {},
                            'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.eigenvector_centrality.html'},
 'generic_bfs_edges': {'additional_docs': "bfs_edges (NetworkX's order); a neighbors callable "
                                          'falls back.',
                       'additional_parameters': {},
                       'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.traversal.breadth_first_search.generic_bfs_edges.html'},
 'harmonic_centrality': {'additional_docs': 'Unweighted only (distance falls back); multi-source '
                                            'BFS in batches, from the smaller of nbunch and '
                                            'sources.',
                         'additional_parameters': {},
                         'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.harmonic_centrality.html'},
 'has_path': {'additional_docs': 'One BFS (bitgraph.algorithms.bfs) from source.',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.generic.has_path.html'},
 'hits': {'additional_docs': "method as NetworkX (default: the installed NetworkX's, "
                             "power_iteration from 3.7, svd before). power_iteration: NetworkX's "
                             'iteration and stop rule, one vxm and one mxv a step; svd: power '
                             "iteration to NetworkX's singular vectors, a run that does not "
                             'converge falls back to ARPACK.',
          'additional_parameters': {},
          'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.link_analysis.hits_alg.hits.html'},
 'in_degree_centrality': {'additional_docs': 'Column counts of the adjacency; multigraphs fall '
                                             'back.',
                          'additional_parameters': {},
                          'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.in_degree_centrality.html'},
 'is_arborescence': {'additional_docs': 'is_tree and in-degrees at most 1.',
                     'additional_parameters': {},
                     'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.tree.recognition.is_arborescence.html'},
 'is_bipartite': {'additional_docs': 'Distance parities from one BFS over every component (a '
                                     'virtual root), then one check over the edges.',
                  'additional_parameters': {},
                  'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.bipartite.basic.is_bipartite.html'},
 'is_branching': {'additional_docs': 'is_forest and in-degrees at most 1.',
                  'additional_parameters': {},
                  'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.tree.recognition.is_branching.html'},
 'is_connected': {'additional_docs': 'Afforest union-find; one component or not.',
                  'additional_parameters': {},
                  'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.components.is_connected.html'},
 'is_directed_acyclic_graph': {'additional_docs': 'Kahn peeling of in-degree-0 vertices: a push '
                                                  'along the removed rows a round (one vxm when '
                                                  'the frontier is wide).',
                               'additional_parameters': {},
                               'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.dag.is_directed_acyclic_graph.html'},
 'is_empty': {'additional_docs': 'No stored entries.',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.classes.function.is_empty.html'},
 'is_eulerian': {'additional_docs': 'Degree parity (directed: in = out) and (weak) connectivity by '
                                    'Afforest.',
                 'additional_parameters': {},
                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.euler.is_eulerian.html'},
 'is_forest': {'additional_docs': 'Node and edge counts per (weakly) connected component '
                                  '(Afforest).',
               'additional_parameters': {},
               'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.tree.recognition.is_forest.html'},
 'is_isolate': {'additional_docs': 'Empty row and column.',
                'additional_parameters': {},
                'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.isolate.is_isolate.html'},
 'is_k_regular': {'additional_docs': 'Row counts.',
                  'additional_parameters': {},
                  'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.regular.is_k_regular.html'},
 'is_regular': {'additional_docs': 'Row and column counts.',
                'additional_parameters': {},
                'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.regular.is_regular.html'},
 'is_tree': {'additional_docs': 'Edge count and (weakly) connected components (Afforest).',
             'additional_parameters': {},
             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.tree.recognition.is_tree.html'},
 'is_weakly_connected': {'additional_docs': 'Afforest union-find ignoring edge directions.',
                         'additional_parameters': {},
                         'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.components.is_weakly_connected.html'},
 'isolates': {'additional_docs': 'Vertices with empty rows and columns.',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.isolate.isolates.html'},
 'jaccard_coefficient': {'additional_docs': 'Common neighbours of all pairs from one masked A '
                                            'plus.pair A.',
                         'additional_parameters': {},
                         'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.link_prediction.jaccard_coefficient.html'},
 'k_core': {'additional_docs': 'Core numbers by peeling; node or edge attributes fall back.',
            'additional_parameters': {},
            'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.core.k_core.html'},
 'k_corona': {'additional_docs': 'Core numbers by peeling, neighbour counts by one mxv; graphs '
                                 'with attributes fall back.',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.core.k_corona.html'},
 'k_crust': {'additional_docs': 'Core numbers by peeling; node or edge attributes fall back.',
             'additional_parameters': {},
             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.core.k_crust.html'},
 'k_shell': {'additional_docs': 'Core numbers by peeling; node or edge attributes fall back.',
             'additional_parameters': {},
             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.core.k_shell.html'},
 'k_truss': {'additional_docs': "LAGraph's k-truss (masked C plus.pair C, select by support, until "
                                'stable); graphs with attributes fall back.',
             'additional_parameters': {},
             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.core.k_truss.html'},
 'katz_centrality': {'additional_docs': "Power iteration, one vxm a step with NetworkX's update "
                                        'and stop rule; beta as a number or a dict, weights and '
                                        'nstart as NetworkX.',
                     'additional_parameters': {},
                     'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.katz_centrality.html'},
 'negative_edge_cycle': {'additional_docs': 'bitgraph.algorithms.negative_cycle (Bellman-Ford '
                                            'rounds from every vertex at once); heuristic is '
                                            'ignored.',
                         'additional_parameters': {},
                         'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.negative_edge_cycle.html'},
 'node_connected_component': {'additional_docs': 'Labels every vertex by component (Afforest), '
                                                 "then picks n's.",
                              'additional_parameters': {},
                              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.components.node_connected_component.html'},
 'number_connected_components': {'additional_docs': 'Afforest union-find; counts the component '
                                                    'roots.',
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.components.number_connected_components.html'},
 'number_of_isolates': {'additional_docs': 'Counts the vertices with empty rows and columns.',
                        'additional_parameters': {},
                        'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.isolate.number_of_isolates.html'},
 'number_of_selfloops': {'additional_docs': 'Counts the diagonal.',
                         'additional_parameters': {},
                         'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.classes.function.number_of_selfloops.html'},
 'number_of_walks': {'additional_docs': 'A^k by repeated squaring with mxm (int64 plus.times).',
                     'additional_parameters': {},
                     'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.walks.number_of_walks.html'},
 'number_weakly_connected_components': {'additional_docs': 'Afforest union-find ignoring edge '
                                                           'directions.',
                                        'additional_parameters': {},
                                        'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.components.number_weakly_connected_components.html'},
 'onion_layers': {'additional_docs': 'The rounds of the k-core peeling.',
                  'additional_parameters': {},
                  'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.core.onion_layers.html'},
 'out_degree_centrality': {'additional_docs': 'Row counts of the adjacency; multigraphs fall back.',
                           'additional_parameters': {},
                           'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.centrality.out_degree_centrality.html'},
 'overall_reciprocity': {'additional_docs': "Off-diagonal entries of A .* A' over the edges.",
                         'additional_parameters': {},
                         'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.reciprocity.overall_reciprocity.html'},
 'pagerank': {'additional_docs': "Power iteration, one fused pass over A' per iteration; weights, "
                                 'personalization, nstart and dangling as NetworkX; multigraphs '
                                 'fall back.',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.link_analysis.pagerank_alg.pagerank.html'},
 'preferential_attachment': {'additional_docs': 'Degree products.',
                             'additional_parameters': {},
                             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.link_prediction.preferential_attachment.html'},
 'radius': {'additional_docs': 'Unweighted only; exact, from multi-source BFS of every node.',
            'additional_parameters': {},
            'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.distance_measures.radius.html'},
 'reciprocity': {'additional_docs': "Row counts of A .* A' against in + out degrees.",
                 'additional_parameters': {},
                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.reciprocity.reciprocity.html'},
 'resource_allocation_index': {'additional_docs': 'Sums over common neighbours from one masked '
                                                  'plus.times product.',
                               'additional_parameters': {},
                               'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.link_prediction.resource_allocation_index.html'},
 'reverse': {'additional_docs': "The transpose A'; graphs with attributes and copy=False fall "
                                'back.',
             'additional_parameters': {},
             'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.operators.unary.reverse.html'},
 'rich_club_coefficient': {'additional_docs': 'normalized=False only (the random swaps of '
                                              'normalized=True fall back); degree and edge-degree '
                                              'counts.',
                           'additional_parameters': {},
                           'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.richclub.rich_club_coefficient.html'},
 's_metric': {'additional_docs': 'Degree products over the stored entries.',
              'additional_parameters': {},
              'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.smetric.s_metric.html'},
 'shortest_path': {'additional_docs': 'BFS parents (unweighted) or sssp distances and their tight '
                                      "edges (weighted). Tied paths: NetworkX's path. Where "
                                      "NetworkX's choice follows G.pred, its two-heap "
                                      "bidirectional Dijkstra or Bellman-Ford's queue, tied paths "
                                      'fall back to NetworkX.',
                   'additional_parameters': {},
                   'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.generic.shortest_path.html'},
 'shortest_path_length': {'additional_docs': 'Unweighted through BFS (on the GPU when the graph is '
                                             'there), weighted through bitgraph.algorithms.sssp '
                                             '(CPU); negative weights run with '
                                             "method='bellman-ford' (a negative cycle raises "
                                             "NetworkXUnbounded) and fall back with 'dijkstra'.",
                          'additional_parameters': {},
                          'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.generic.shortest_path_length.html'},
 'single_source_bellman_ford': {'additional_docs': 'bitgraph.algorithms.sssp (negative weights '
                                                   'too); tied paths fall back.',
                                'additional_parameters': {},
                                'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.single_source_bellman_ford.html'},
 'single_source_bellman_ford_path': {'additional_docs': 'bitgraph.algorithms.sssp (negative '
                                                        'weights too); tied paths fall back.',
                                     'additional_parameters': {},
                                     'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.single_source_bellman_ford_path.html'},
 'single_source_bellman_ford_path_length': {'additional_docs': 'bitgraph.algorithms.sssp '
                                                               '(Bellman-Ford with negative '
                                                               'weights); a reachable negative '
                                                               'cycle raises NetworkXUnbounded.',
                                            'additional_parameters': {},
                                            'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.single_source_bellman_ford_path_length.html'},
 'single_source_dijkstra': {'additional_docs': "bitgraph.algorithms.sssp, then NetworkX's heap "
                                               "order over the tight edges. Tied paths: NetworkX's "
                                               'path.',
                            'additional_parameters': {},
                            'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.single_source_dijkstra.html'},
 'single_source_dijkstra_path': {'additional_docs': "bitgraph.algorithms.sssp, then NetworkX's "
                                                    'heap order over the tight edges. Tied paths: '
                                                    "NetworkX's path.",
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.single_source_dijkstra_path.html'},
 'single_source_dijkstra_path_length': {'additional_docs': 'bitgraph.algorithms.sssp '
                                                           '(delta-stepping / Bellman-Ford); '
                                                           'negative weights fall back.',
                                        'additional_parameters': {},
                                        'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.weighted.single_source_dijkstra_path_length.html'},
 'single_source_shortest_path': {'additional_docs': "Level-synchronous BFS in NetworkX's neighbour "
                                                    'order; cutoff supported. Tied paths: '
                                                    "NetworkX's path.",
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.unweighted.single_source_shortest_path.html'},
 'single_source_shortest_path_length': {'additional_docs': 'BFS levels through '
                                                           'bitgraph.algorithms.bfs (on the GPU '
                                                           'when the graph is there); cutoff '
                                                           'supported.',
                                        'additional_parameters': {},
                                        'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.unweighted.single_source_shortest_path_length.html'},
 'single_target_shortest_path': {'additional_docs': 'BFS to target; directed graphs with tied '
                                                    "paths fall back (NetworkX's choice follows "
                                                    'G.pred).',
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.unweighted.single_target_shortest_path.html'},
 'single_target_shortest_path_length': {'additional_docs': 'BFS over the transposed adjacency (on '
                                                           'the GPU when the graph is there); '
                                                           'cutoff supported.',
                                        'additional_parameters': {},
                                        'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.shortest_paths.unweighted.single_target_shortest_path_length.html'},
 'transitivity': {'additional_docs': 'From per-vertex triangle counts and degrees; directed: '
                                     'masked A plus.times A.',
                  'additional_parameters': {},
                  'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.cluster.transitivity.html'},
 'triangles': {'additional_docs': 'Per-vertex triangle counts of the whole graph (ordered kernel, '
                                  'degree relabelling on skewed graphs), even when one node is '
                                  'asked for.',
               'additional_parameters': {},
               'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.cluster.triangles.html'},
 'weakly_connected_components': {'additional_docs': 'Afforest union-find ignoring edge directions '
                                                    '(no symmetrised copy).',
                                 'additional_parameters': {},
                                 'url': 'https://networkx.org/documentation/stable/reference/generated/networkx.algorithms.components.weakly_connected_components.html'}}
# --- generated: end ---


def get_info():
    """The backend's metadata: functions (with a note and extra parameters)
    and default configuration (``nx.config.backends.bitgraph``)."""
    return {
        "backend_name": "bitgraph",
        "project": "bitgraph",
        "package": "bitgraph",
        "short_summary": "GraphBLAS-style sparse linear algebra with bit-packed adjacency, on CPU and CUDA.",
        "functions": {name: dict(info) for name, info in _FUNCTIONS.items()},
        "default_config": {
            # "auto": CUDA when CuPy imports and sees a GPU, else CPU; "cpu"; or
            # "cuda" (an error when it is not usable). On CUDA the BFS-based
            # functions run on the GPU, the others on a CPU copy made once per graph.
            "device": "auto",
            # automatic dispatch (nx.config.backend_priority) leaves smaller graphs to
            # NetworkX; backend="bitgraph" always runs here; 0 sends every graph here
            "should_run_min_edges": 10_000,
        },
    }
