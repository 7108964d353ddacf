{{ cdc_current_state() }}
