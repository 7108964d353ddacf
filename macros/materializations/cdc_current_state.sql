{% materialization cdc_current_state, adapter='spark' %}
    {#-
        Builds a current-state table (see macros/marts/current_state.sql): appends the fold of
        the run's new changes to <model>__cdc_state as one batch (or builds it whole on the
        first run and on --full-refresh), folds the deltas into the base when there are
        var cdc_compact_after_batches of them, and points the views <model>__cdc_rows and
        <model> at the state. The fold is idempotent, so a run stopped at any point and run
        again gives the same state. A run with no new change writes nothing.
    -#}
    {%- set target_table = cdc_target_table(model.name) -%}
    {%- set target_relation = this.incorporate(type='view') -%}
    {%- set state_relation = cdc_state_relation(this) -%}
    {%- set rows_relation = cdc_rows_relation(this) -%}
    {%- set compact_after = var('cdc_compact_after_batches') | int -%}
    {%- if compact_after < 1 -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_compact_after_batches is " ~ var('cdc_compact_after_batches') ~ ": expected a whole number of at least 1"
        ) }}
    {%- endif -%}
    {%- set incremental = cdc_state_is_incremental() -%}
    {%- set has_new_changes = cdc_no_new_changes_marker() not in sql -%}
    {%- set existing_relation = load_cached_relation(this) -%}

    {{ run_hooks(pre_hooks) }}

    {%- if not incremental %}
        {% call statement('drop_state') -%}
            drop table if exists {{ state_relation }}
        {%- endcall %}
        {#- Created from its declared schema, so that a table nothing was staged for yet costs no query plan. -#}
        {% call statement('create_state') -%}
            create table {{ state_relation }} (
                {{- cdc_row_state_schema(target_table) | indent(16) }},
                _cdc_batch int
            )
            using parquet
            partitioned by (_cdc_batch)
        {%- endcall %}
        {%- if has_new_changes %}
            {% call statement('main') -%}
                insert into {{ state_relation }} partition (_cdc_batch = 0)
                select * from ({{ sql }}) as folded_changes
            {%- endcall %}
        {%- else %}
            {% call noop_statement('main', 'no staged changes') -%}{%- endcall %}
        {%- endif %}
        {%- set batches = [0] -%}
    {%- else %}
        {%- set batches = _cdc_state_batches(state_relation) -%}
        {%- if has_new_changes %}
            {%- set next_batch = (batches | max) + 1 -%}
            {% call statement('main') -%}
                insert into {{ state_relation }} partition (_cdc_batch = {{ next_batch }})
                select * from ({{ sql }}) as folded_changes
            {%- endcall %}
            {%- do batches.append(next_batch) -%}
            {#- A view's text must fit the metastore (Derby keeps at most 32,700 characters): a table
                too wide for a folded view has its deltas folded into the base at once. -#}
            {%- set folded_view_too_long = cdc_rows_view_sql(target_table, state_relation, true) | length
                > var('cdc_max_view_text_length') | int -%}
            {%- if batches | length > compact_after or folded_view_too_long -%}
                {%- do _cdc_compact_state(target_table, state_relation, batches) -%}
                {%- set batches = [0] -%}
            {%- endif -%}
        {%- else %}
            {% call noop_statement('main', 'no new changes') -%}{%- endcall %}
        {%- endif %}
    {%- endif %}

    {#- The views change only when the state changed shape (deltas appeared or went) or are missing. -#}
    {%- set folded = batches | length > 1 -%}
    {%- set existing_rows = load_cached_relation(rows_relation) -%}
    {%- if not incremental or has_new_changes or existing_rows is none or existing_relation is none
        or existing_relation.type != 'view' -%}
        {%- if existing_relation is not none and existing_relation.type != 'view' -%}
            {%- do adapter.drop_relation(existing_relation) -%}
        {%- endif -%}
        {% call statement('rows_view') -%}
            create or replace view {{ rows_relation }} as
            {{ cdc_rows_view_sql(target_table, state_relation, folded) }}
        {%- endcall %}
        {% call statement('current_rows_view') -%}
            create or replace view {{ target_relation }} as
            {{ cdc_current_rows_view_sql(target_table, rows_relation) }}
        {%- endcall %}
    {%- endif -%}

    {{ run_hooks(post_hooks) }}
    {% do persist_docs(target_relation, model) %}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{% macro _cdc_state_batches(state_relation) %}
    {#- The _cdc_batch partitions of a state table, as numbers (metadata only: no Spark job). -#}
    {%- set batches = [] -%}
    {%- for row in run_query('show partitions ' ~ state_relation) -%}
        {%- do batches.append(row[0].split('=')[1] | int) -%}
    {%- endfor -%}
    {{ return(batches if batches else [0]) }}
{% endmacro %}


{% macro _cdc_compact_state(target_table, state_relation, batches) %}
    {#-
        Folds every batch of the state into the base (batch 0). The fold is written to a side
        table first (Spark cannot overwrite a table it reads), then replaces batch 0, then the
        deltas are dropped. Stopped anywhere, the state still folds to the same rows: the base
        may then hold changes a delta holds too, and folding them twice changes nothing.
    -#}
    {%- set compacted = api.Relation.create(
        database=state_relation.database, schema=state_relation.schema,
        identifier=state_relation.identifier ~ '__compacting', type='table'
    ) -%}
    {%- set deltas = [] -%}
    {%- for batch in batches if batch != 0 -%}
        {%- do deltas.append('partition (_cdc_batch = ' ~ batch ~ ')') -%}
    {%- endfor -%}
    {% do run_query('drop table if exists ' ~ compacted) %}
    {% call statement('compact_fold') -%}
        create table {{ compacted }} using parquet as
        {{ cdc_fold_row_states(state_relation, target_table) }}
    {%- endcall %}
    {% call statement('compact_base') -%}
        insert overwrite table {{ state_relation }} partition (_cdc_batch = 0)
        select * from {{ compacted }}
    {%- endcall %}
    {% do run_query('alter table ' ~ state_relation ~ ' drop if exists ' ~ deltas | join(', ')) %}
    {% do run_query('drop table if exists ' ~ compacted) %}
{% endmacro %}
