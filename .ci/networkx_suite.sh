#!/usr/bin/env bash
# NetworkX's own tests of the functions the backend implements, run through
# the backend (NETWORKX_TEST_BACKEND converts every graph and dispatches each
# call; NETWORKX_FALLBACK_TO_NX lets what can_run refuses run in NetworkX).
# Scoped to those functions' test modules: the whole suite takes far longer
# and mostly tests functions the backend does not have.
set -euo pipefail
cd /tmp  # NetworkX's tests, not this repo's pytest configuration
NETWORKX_TEST_BACKEND=bitgraph NETWORKX_FALLBACK_TO_NX=True python3 -m pytest -q -p no:cacheprovider \
  --pyargs \
  networkx.algorithms.traversal \
  networkx.algorithms.shortest_paths \
  networkx.algorithms.link_analysis.tests.test_pagerank \
  networkx.algorithms.components \
  networkx.algorithms.tests.test_cluster \
  networkx.algorithms.centrality.tests.test_closeness_centrality \
  networkx.algorithms.tests.test_distance_measures \
  networkx.algorithms.centrality.tests.test_degree_centrality \
  networkx.algorithms.centrality.tests.test_eigenvector_centrality \
  networkx.algorithms.centrality.tests.test_katz_centrality \
  networkx.algorithms.link_analysis.tests.test_hits \
  networkx.algorithms.tests.test_reciprocity \
  networkx.algorithms.tests.test_isolate \
  networkx.algorithms.operators.tests.test_unary \
  networkx.algorithms.tests.test_core \
  networkx.algorithms.tests.test_link_prediction \
  networkx.algorithms.tests.test_dag \
  networkx.algorithms.assortativity.tests.test_connectivity \
  networkx.algorithms.assortativity.tests.test_neighbor_degree \
  networkx.algorithms.tree.tests.test_recognition \
  networkx.algorithms.tests.test_regular \
  networkx.algorithms.tests.test_euler \
  networkx.classes.tests.test_function \
  networkx.algorithms.centrality.tests.test_harmonic_centrality \
  networkx.algorithms.centrality.tests.test_betweenness_centrality \
  networkx.algorithms.tests.test_walks \
  networkx.algorithms.tests.test_smetric \
  networkx.algorithms.tests.test_richclub \
  networkx.algorithms.bipartite.tests.test_basic
