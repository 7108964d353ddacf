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
    {%- set has_truncations = cdc_truncations_marker() in sql -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {#- A table with history: the model's SQL gives the new changes, not their fold (macros/marts/history.sql). -#}
    {%- set history = target_table.history is true -%}
    {%- set changes_relation = cdc_changes_relation(this) -%}
    {%- set history_state_relation = cdc_history_state_relation(this) -%}
    {%- set history_relation = cdc_history_relation(this) -%}

    {{ run_hooks(pre_hooks) }}

    {%- if not incremental %}
        {#- Created from its declared schema, so that a table nothing was staged for yet costs no query plan. -#}
        {%- do _cdc_create_batched_table(state_relation, cdc_row_state_schema(target_table)) -%}
        {%- if history %}
            {%- do _cdc_create_batched_table(changes_relation, cdc_row_state_schema(target_table, with_deleted_flag=false)) -%}
            {%- do _cdc_create_batched_table(history_state_relation, cdc_history_schema(target_table)) -%}
        {%- elif load_cached_relation(history_state_relation) is not none %}
            {#- history no longer asked for -#}
            {%- do adapter.drop_relation(history_relation) -%}
            {%- do adapter.drop_relation(history_state_relation) -%}
            {%- do adapter.drop_relation(changes_relation) -%}
        {%- endif %}
        {%- if has_new_changes %}
            {%- do _cdc_append_batch(target_table, state_relation, 0, sql, history, has_truncations) -%}
        {%- else %}
            {% call noop_statement('main', 'no staged changes') -%}{%- endcall %}
        {%- endif %}
        {%- set batches = [0] -%}
    {%- else %}
        {%- set batches = _cdc_state_batches(state_relation) if has_new_changes else none -%}
        {%- if has_new_changes %}
            {%- set next_batch = (batches | max) + 1 -%}
            {%- do _cdc_append_batch(target_table, state_relation, next_batch, sql, history, has_truncations) -%}
            {%- do batches.append(next_batch) -%}
            {#- A view's text must fit the metastore (Derby keeps at most 32,700 characters): a table
                too wide for a folded view has its deltas folded into the base at once. -#}
            {%- set folded_view_too_long = cdc_rows_view_sql(target_table, state_relation, true) | length
                > var('cdc_max_view_text_length') | int -%}
            {%- if batches | length > compact_after or folded_view_too_long -%}
                {%- set base = _cdc_compact_batches(state_relation, batches, cdc_fold_row_states(state_relation, target_table)) -%}
                {%- set batches = [base] -%}
            {%- endif -%}
        {%- else %}
            {% call noop_statement('main', 'no new changes') -%}{%- endcall %}
        {%- endif %}
    {%- endif %}

    {#- The views change only when the state changed shape (deltas appeared or went) or are missing. -#}
    {%- set existing_rows = load_cached_relation(rows_relation) -%}
    {%- if not incremental or has_new_changes or existing_rows is none or existing_relation is none
        or existing_relation.type != 'view' -%}
        {%- set folded = (batches if batches is not none else _cdc_state_batches(state_relation)) | length > 1 -%}
        {%- if existing_relation is not none and existing_relation.type != 'view' -%}
            {%- do adapter.drop_relation(existing_relation) -%}
        {%- endif -%}
        {#- an incremental run keeps the state table, so a view whose SQL did not change stays as it is (Spark
            analyses a view's query when it creates it: 0.3-0.75 s for the rows view's fold) -#}
        {%- set keep_unchanged = incremental and existing_rows is not none and existing_relation is not none
            and existing_relation.type == 'view' -%}
        {%- do _cdc_replace_view(rows_relation, cdc_rows_view_sql(target_table, state_relation, folded), keep_unchanged) -%}
        {%- do _cdc_replace_view(target_relation, cdc_current_rows_view_sql(target_table, rows_relation), keep_unchanged) -%}
    {%- endif -%}
    {%- set history_base = none -%}
    {%- if history and has_new_changes -%}
        {%- set history_batches = _cdc_state_batches(history_state_relation) -%}
        {%- set history_base = history_batches | min -%}
        {%- if history_batches | length > compact_after -%}
            {%- set history_base = _cdc_compact_batches(
                history_state_relation, history_batches,
                cdc_history_view_sql(target_table, history_state_relation, history_base),
            ) -%}
            {%- do _cdc_compact_batches(
                changes_relation, _cdc_state_batches(changes_relation), 'select * except (_cdc_batch) from ' ~ changes_relation
            ) -%}
        {%- endif -%}
    {%- endif -%}
    {%- set existing_history = load_cached_relation(history_relation) if history else none -%}
    {%- if history and (not incremental or has_new_changes or existing_history is none) -%}
        {#- the view names the base (the lowest batch), which a compaction moves: written again when its text changes -#}
        {%- do _cdc_replace_view(
            history_relation,
            cdc_history_view_sql(
                target_table, history_state_relation,
                history_base if history_base is not none else _cdc_state_batches(history_state_relation) | min,
            ),
            incremental and existing_history is not none,
        ) -%}
    {%- endif -%}

    {#- the staging time up to which this table has seen every change, for the next run's start (cdc_new_work) -#}
    {%- set checked_through = cdc_record_checked_through(state_relation) -%}
    {%- if checked_through -%}
        {% call statement('checked_through') -%}{{ checked_through }}{%- endcall %}
    {%- endif -%}

    {{ run_hooks(post_hooks) }}
    {% do persist_docs(target_relation, model) %}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{% macro _cdc_state_batches(state_relation) %}
    {#- The _cdc_batch partitions of a state table, as numbers (metadata only: no Spark job). -#}
    {%- set batches = _cdc_partitions(state_relation) | map(attribute='_cdc_batch') | map('int') | list -%}
    {{ return(batches if batches else [0]) }}
{% endmacro %}


{% macro _cdc_append_batch(target_table, state_relation, batch, sql, history, has_truncations) %}
    {#-
        Appends the run's new changes (the model's `sql`) to the state as batch `batch`: their
        fold, which is the model's SQL itself for a table without history. With history, the
        SQL gives the changes: they are kept as one batch of <model>__cdc_changes, the state's
        batch is their fold, and the history of the keys they touch (of every key when one
        truncates the table) is written again as one batch of <model>__cdc_history.
        A batch is a partition no run has registered yet. A run killed after writing a batch's
        files but before registering them leaves them in its folder, which the rerun's batch
        of the same number reuses: the kept changes and the versions are written by insert
        overwrite, which replaces that folder (a history batch is read whole, so files left
        beside it would be versions twice). The state's batch is inserted into (its statement
        reads the state, which Spark does not let one overwrite): rows left there are a fold
        of the same changes, which the fold of the batches gives once (tests/e2e/test_killed_runs.py).
    -#}
    {%- if not history %}
        {% call statement('main') -%}
            insert into {{ state_relation }} partition (_cdc_batch = {{ batch }})
            select * from ({{ sql }}) as folded_changes
        {%- endcall %}
        {{ return(none) }}
    {%- endif %}
    {%- set changes_relation = cdc_changes_relation(this) -%}
    {%- set history_state_relation = cdc_history_state_relation(this) -%}
    {#- batch 0: a first build or a full refresh -#}
    {%- set change_batch = 0 if batch == 0 else (_cdc_state_batches(changes_relation) | max) + 1 -%}
    {% call statement('main') -%}
        insert overwrite table {{ changes_relation }} partition (_cdc_batch = {{ change_batch }})
        select * from ({{ sql }}) as new_changes
    {%- endcall %}
    {#- the history before the state: a run stopped between them reads the same changes again -#}
    {%- if batch == 0 or has_truncations %}
        {#- every key's history (a truncation closes every open version), as a new base above
            every batch, which then go (written before they are dropped, as in a compaction) -#}
        {%- set history_batches = [] if batch == 0 else _cdc_state_batches(history_state_relation) -%}
        {%- set history_base = 0 if batch == 0 else (history_batches | max) + 1 -%}
        {% call statement('history_versions') -%}
            insert overwrite table {{ history_state_relation }} partition (_cdc_batch = {{ history_base }})
            {{ cdc_history_versions(changes_relation, target_table) }}
        {%- endcall %}
        {%- do _cdc_drop_batches(history_state_relation, history_batches) -%}
    {%- else %}
        {#- the history of the keys the new changes touch, as one more batch -#}
        {% call statement('history_versions') -%}
            insert overwrite table {{ history_state_relation }} partition (_cdc_batch = {{ (_cdc_state_batches(history_state_relation) | max) + 1 }})
            {{ cdc_history_versions(changes_relation, target_table, rebuilt_batch=change_batch) }}
        {%- endcall %}
    {%- endif %}
    {% call statement('fold_changes') -%}
        insert into {{ state_relation }} partition (_cdc_batch = {{ batch }})
        {{ cdc_fold_row_states(
            '(select * from ' ~ changes_relation ~ ' as changes where ' ~ cdc_in_batch('changes', change_batch) ~ ')',
            target_table, truncations=has_truncations,
        ) }}
    {%- endcall %}
{% endmacro %}


{% macro _cdc_create_batched_table(relation, columns_ddl) %}
    {#- (Re)creates `relation` empty, with the columns `columns_ddl` and the _cdc_batch partition column. -#}
    {% do run_query('drop table if exists ' ~ relation) %}
    {% call statement('create_' ~ relation.identifier) -%}
        create table {{ relation }} (
            {{- columns_ddl | indent(12) }},
            _cdc_batch int
        )
        using parquet
        partitioned by (_cdc_batch)
    {%- endcall %}
{% endmacro %}


{% macro _cdc_compact_batches(relation, batches, compacted_sql) %}
    {#-
        Replaces the batches `batches` of `relation` (a state or history table) by the rows of
        `compacted_sql` (their fold, or their latest versions), written as one new batch above
        them, the new base, which it returns; then drops them. Nothing is deleted before the
        new base is registered: an insert overwrite of the old base would delete its files
        first, and a run killed before its new files were committed would leave the table
        without them (measured: a killed `insert overwrite` of a partition left it registered
        and empty). Stopped anywhere, the table reads the same: the new base's files are not
        read until Spark registers them, and while some older batches are left beside it the
        fold (or the latest batch of a key) gives the same rows. The statement reads the table
        it inserts into, which Spark allows for an insert (not for an overwrite).
    -#}
    {%- set base = (batches | max) + 1 -%}
    {% call statement('compact_' ~ relation.identifier) -%}
        insert into {{ relation }} partition (_cdc_batch = {{ base }})
        {{ compacted_sql }}
    {%- endcall %}
    {% do _cdc_drop_batches(relation, batches) %}
    {{ return(base) }}
{% endmacro %}


{% macro _cdc_drop_batches(relation, batches) %}
    {#- Drops the partitions of `batches` from `relation` (metadata, and the folders of a managed table). -#}
    {%- set partitions = [] -%}
    {%- for batch in batches -%}
        {%- do partitions.append('partition (_cdc_batch = ' ~ batch ~ ')') -%}
    {%- endfor -%}
    {%- if partitions -%}
        {% do run_query('alter table ' ~ relation ~ ' drop if exists ' ~ partitions | join(', ')) %}
    {%- endif -%}
{% endmacro %}


{% macro _cdc_replace_view(relation, view_sql, keep_unchanged) %}
    {#-
        Creates or replaces the view `relation` as `view_sql`, with the MD5 of its SQL in its table
        property cdc.sql_md5; with keep_unchanged, a view created from the same SQL is left as it is.
    -#}
    {%- set sql_md5 = local_md5(view_sql) -%}
    {%- if keep_unchanged and _cdc_has_table_property(relation, 'cdc.sql_md5', sql_md5) -%}
        {{ return(none) }}
    {%- endif -%}
    {% call statement('view_' ~ relation.identifier) -%}
        create or replace view {{ relation }} tblproperties ('cdc.sql_md5' = '{{ sql_md5 }}') as
        {{ view_sql }}
    {%- endcall %}
{% endmacro %}
